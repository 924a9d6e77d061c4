import Foundation
import Logging
import SkinModel
import SkinPackage

/// Loads every skin folder below a directory, validating each; invalid skins are reported and left out.
public struct SkinDirectoryLoader: Sendable {
    /// A folder that could not become a skin, with why.
    public struct Rejection: Sendable {
        public let folder: String
        public let report: ValidationReport?
        public let reason: String
    }

    public let limits: ValidationLimits

    public init(limits: ValidationLimits = ValidationLimits()) {
        self.limits = limits
    }

    /// Validates each immediate subfolder of `directory` (sorted by name, hidden folders skipped).
    ///
    /// - Returns: packagers for the valid skins and the rejected folders. Duplicate skin ids: the first folder wins,
    ///   the later ones are rejected.
    public func load(from directory: String) throws(SkinDirectoryError) -> (skins: [SkinPackager], rejected: [Rejection])
    {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw .unreadable(directory)
        }
        var skins: [SkinPackager] = []
        var rejected: [Rejection] = []
        var seen: Set<SkinID> = []
        for name in names where !name.hasPrefix(".") {
            let folder = directory + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
                FileManager.default.fileExists(atPath: folder + "/skin.json")
            else { continue }
            let source = DirectorySkinSource(path: folder)
            let report = SkinValidator(limits: limits).validate(source)
            guard let skin = report.skin else {
                rejected.append(Rejection(folder: folder, report: report, reason: "invalid skin"))
                continue
            }
            guard seen.insert(skin.manifest.id).inserted else {
                rejected.append(Rejection(folder: folder, report: report, reason: "duplicate skin id \(skin.manifest.id)"))
                continue
            }
            do {
                skins.append(try SkinPackager(skin: skin, source: source))
            } catch {
                rejected.append(Rejection(folder: folder, report: report, reason: error.description))
            }
        }
        return (skins, rejected)
    }
}

/// Failures loading a skins directory.
public enum SkinDirectoryError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "skins directory '\(path)' cannot be read"
        }
    }
}
