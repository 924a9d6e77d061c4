import CZlib

/// A raw-deflate compressor (no zlib or gzip wrapper, as zip method 8 requires) owning one `z_stream`.
///
/// The stream lives at a stable heap address for its whole life, because zlib keeps pointers into it; it is
/// freed in `deinit`. Reusing one deflater across entries (`reset`) avoids reallocating zlib's ~256 KiB state.
final class Deflater {
    /// Parameters fixed for determinism: a 32 KiB window (raw: -15), memLevel 8, default strategy.
    static let windowBits: Int32 = -15
    static let memoryLevel: Int32 = 8

    private let stream: UnsafeMutablePointer<z_stream>
    let level: Int32

    /// - Throws: `ZipError.compressionFailed` if zlib cannot initialise (out of memory or a bad level).
    init(level: Int32) throws(ZipError) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = livery_deflateInit2(stream, level, Z_DEFLATED, Self.windowBits, Self.memoryLevel, Z_DEFAULT_STRATEGY)
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .compressionFailed(zlibCode: code)
        }
        self.level = level
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts a new, independent deflate stream with the same parameters.
    func reset() throws(ZipError) {
        let code = deflateReset(stream)
        guard code == Z_OK else { throw .compressionFailed(zlibCode: code) }
    }

    /// Compresses `input` (all of it), handing each filled piece of `scratch` to `sink`. With `finish`, also
    /// ends the stream. `sink` returns false to stop early (the stream must then be `reset` before reuse).
    ///
    /// - Returns: false if `sink` asked to stop.
    func deflate(
        _ input: UnsafeRawBufferPointer,
        finish: Bool,
        scratch: UnsafeMutableRawBufferPointer,
        sink: (UnsafeRawBufferPointer) throws(ZipError) -> Bool
    ) throws(ZipError) -> Bool {
        guard let out = scratch.baseAddress?.assumingMemoryBound(to: Bytef.self), scratch.count > 0 else {
            throw .compressionFailed(zlibCode: Z_BUF_ERROR)
        }
        if input.isEmpty && !finish { return true }
        var remaining = input
        let flush = finish ? Z_FINISH : Z_NO_FLUSH
        // avail_in is 32 bits: feed at most 1 GiB per call.
        repeat {
            let take = min(remaining.count, 1 << 30)
            let lastPiece = take == remaining.count
            stream.pointee.next_in =
                take == 0
                ? nil : UnsafeMutablePointer(mutating: remaining.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = UInt32(take)
            let pieceFlush = lastPiece ? flush : Z_NO_FLUSH
            while true {
                stream.pointee.next_out = out
                stream.pointee.avail_out = UInt32(clamping: scratch.count)
                let code = CZlib.deflate(stream, pieceFlush)
                let produced = scratch.count - Int(stream.pointee.avail_out)
                guard code == Z_OK || code == Z_STREAM_END || (code == Z_BUF_ERROR && produced > 0) else {
                    // Z_BUF_ERROR with nothing produced means no progress was possible: a bug, not data.
                    throw .compressionFailed(zlibCode: code)
                }
                if produced > 0 {
                    guard try sink(UnsafeRawBufferPointer(rebasing: scratch[0..<produced])) else { return false }
                }
                if pieceFlush == Z_FINISH {
                    if code == Z_STREAM_END { break }
                } else if stream.pointee.avail_out != 0 {
                    // Output space left over means deflate took all the input it was given.
                    break
                }
            }
            remaining = UnsafeRawBufferPointer(rebasing: remaining[take...])
        } while !remaining.isEmpty
        return true
    }
}
