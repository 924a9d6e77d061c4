/// What reporting devices said about one skin version within a window.
public struct VersionFigures: Sendable, Equatable {
    public var skinID: String
    public var version: Int
    public var reportingDevices: Int  // distinct devices that reported applied or failed
    public var failedDevices: Int  // distinct devices that reported failed (any stage)
    public var failedByStage: [String: Int]

    public init(skinID: String, version: Int, reportingDevices: Int, failedDevices: Int, failedByStage: [String: Int]) {
        self.skinID = skinID
        self.version = version
        self.reportingDevices = reportingDevices
        self.failedDevices = failedDevices
        self.failedByStage = failedByStage
    }
}
