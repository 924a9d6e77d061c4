import CZlib

/// A raw-inflate decompressor owning one `z_stream` at a stable address, for the hostile-first reader.
///
/// It never writes past the output buffer it is given: the caller sizes that buffer from the declared
/// uncompressed size (already checked against limits), and one extra probe byte tells whether the stream
/// wants to produce more than declared — if it does, inflation stops at once.
final class Inflater {
    /// How an `inflate` call ended.
    enum Outcome: Equatable {
        /// The stream ended having produced exactly the output buffer's size; `consumed` input bytes were used.
        case complete(consumed: Int)
        /// The stream tried to produce more than the output buffer holds.
        case exceedsDeclaredSize
        /// The stream ended before filling the output buffer.
        case shorterThanDeclared
        /// The input ran out before the end of the deflate stream.
        case truncated
        /// The input is not valid deflate data.
        case corrupt
        /// zlib could not allocate memory.
        case outOfMemory
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var probe: UInt8 = 0

    /// Returns nil only if zlib cannot allocate its state.
    init?() {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard livery_inflateInit2(stream, -15) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates `input` into `output`, expecting exactly `output.count` bytes. Resets the stream first.
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Outcome {
        guard inflateReset(stream) == Z_OK else { return .corrupt }
        let chunkLimit = 1 << 30  // avail_in and avail_out are 32 bits
        var inputPosition = 0
        var outputPosition = 0
        return withUnsafeMutableBytes(of: &probe) { probeBuffer -> Outcome in
            while true {
                let inputTake = min(input.count - inputPosition, chunkLimit)
                let inputStart = input.baseAddress.map { $0 + inputPosition }
                stream.pointee.next_in =
                    inputTake == 0
                    ? nil : UnsafeMutablePointer(mutating: inputStart?.assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = UInt32(inputTake)
                let usingProbe = outputPosition == output.count
                let target: UnsafeMutableRawPointer?
                let outputTake: Int
                if usingProbe {
                    target = probeBuffer.baseAddress
                    outputTake = 1
                } else {
                    target = output.baseAddress.map { $0 + outputPosition }
                    outputTake = min(output.count - outputPosition, chunkLimit)
                }
                guard let target else { return .corrupt }  // unreachable: both buffers are non-empty here
                stream.pointee.next_out = target.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = UInt32(outputTake)

                let code = CZlib.inflate(stream, Z_NO_FLUSH)

                let consumed = inputTake - Int(stream.pointee.avail_in)
                let produced = outputTake - Int(stream.pointee.avail_out)
                inputPosition += consumed
                if usingProbe {
                    if produced > 0 { return .exceedsDeclaredSize }
                } else {
                    outputPosition += produced
                }
                switch code {
                case Z_STREAM_END:
                    return outputPosition == output.count ? .complete(consumed: inputPosition) : .shorterThanDeclared
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    if consumed == 0 && produced == 0 {
                        return inputPosition == input.count ? .truncated : .corrupt
                    }
                case Z_MEM_ERROR:
                    return .outOfMemory
                default:  // Z_DATA_ERROR, Z_NEED_DICT (never valid in zip), Z_STREAM_ERROR
                    return .corrupt
                }
            }
        }
    }
}
