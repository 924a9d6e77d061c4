import SystemCalls

/// Where the writer sends archive bytes: a file, a socket, a hash, a test buffer.
///
/// The writer calls `write` with the archive's bytes in order, in pieces of up to about
/// `ZipArchiveWriter.Options.bufferSize` (occasionally larger for big stored chunks), and never seeks back.
/// The buffer is only valid during the call. If `write` throws, the writer stops and throws
/// `ZipError.outputFailed`; whatever was written so far is not a valid archive.
public protocol ZipOutput {
    /// Takes the next `bytes` of the archive.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// A `ZipOutput` that collects the archive in memory; for small archives and tests.
public struct ZipMemoryOutput: ZipOutput, Sendable {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        self.bytes.append(contentsOf: bytes)
    }
}

/// Writes to the temporary file behind `ZipArchiveWriter.write(_:to:options:)`, which `DurableFile` owns and
/// closes; valid only while `DurableFile` runs the writer.
struct FileOutput: ZipOutput {
    let descriptor: Int32
    let path: String

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try Syscall.writeAll(descriptor, bytes, path: path)
    }
}
