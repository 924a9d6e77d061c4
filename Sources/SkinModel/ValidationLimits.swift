/// Size limits a skin must stay within. They bound what one upload or folder can make the server read,
/// hold and pack, and keep packages small enough for phones on mobile networks.
public struct ValidationLimits: Sendable, Equatable {
    /// Largest single file, in bytes. Default 16 MiB (a long Lottie file or a large banner fits easily).
    public var maxFileBytes: Int
    /// Largest sum of all file sizes, in bytes. Default 128 MiB.
    public var maxTotalBytes: Int
    /// Most files in a skin. Default 10,000.
    public var maxFileCount: Int

    public init(maxFileBytes: Int = 16 << 20, maxTotalBytes: Int = 128 << 20, maxFileCount: Int = 10_000) {
        self.maxFileBytes = maxFileBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxFileCount = maxFileCount
    }

    /// The defaults documented on each property.
    public static let standard = ValidationLimits()
}
