import Foundation
import LiveryJSON
import Logging
import SkinDirectory
import SkinModel
import SkinStore
import SystemCalls

/// Seeds an empty store from the skins folder: every valid skin becomes version 1, released as its `skin.json`
/// says (a skin without `release` is stored but not served).
///
/// ## When it runs, and why a crash cannot lose or duplicate a skin
/// The import is *pending* while the marker file (`<data-dir>/import-complete`) is missing and every change the
/// store has ever committed was made by the importer (`actor` = `livery:import`; no token name can contain `:`).
/// So it runs on the first start with an empty store, resumes after a crash in the middle of it, and never runs
/// once an operator has changed anything.
///
/// Each skin is added with `addVersion(…, expectedRevision: 0, release: …)`, only if the store has never seen its
/// id: the version and its release are one change, so a crash leaves the skin entirely imported or not at all,
/// and a resumed import skips what is already there. The marker is written (durably) only after every skin is in.
///
/// An import whose task is cancelled (the server told to stop while starting) stops before its next skin: the
/// skins added so far stay, no marker is written, and the next start resumes it.
public struct SkinImporter: Sendable {
    /// The audit actor of imported versions.
    public static let actor = "livery:import"
    /// The marker's file name inside the data directory.
    public static let markerName = "import-complete"

    let store: any SkinStore
    let skinsDirectory: String
    let dataDirectory: String
    let limits: ValidationLimits
    let logger: Logger
    /// Writes the marker (`DurableWrite`).
    let writeDurably: DurableWrite

    public init(
        store: any SkinStore, skinsDirectory: String, dataDirectory: String, limits: ValidationLimits, logger: Logger,
        writeDurably: @escaping DurableWrite = DurableFile.writer
    ) {
        self.store = store
        self.skinsDirectory = skinsDirectory
        self.dataDirectory = dataDirectory
        self.limits = limits
        self.logger = logger
        self.writeDurably = writeDurably
    }

    /// What an import did.
    public struct Summary: Equatable, Sendable {
        public var imported: [String] = []
        public var alreadyStored: [String] = []
        public var rejected: [String] = []
        public var ran = false
        /// The import was cancelled before its last skin: it is still pending, and resumes at the next start.
        public var stopped = false
    }

    var markerPath: String { dataDirectory + "/" + Self.markerName }

    /// Whether the import still has to run (see the type's documentation).
    public func isPending() async throws(StoreError) -> Bool {
        if FileManager.default.fileExists(atPath: markerPath) { return false }
        return try await store.audit(since: nil, limit: Int.max).allSatisfy { $0.actor == Self.actor }
    }

    /// Runs the import if it is pending. Reading and validating the folders, and writing the marker, block on disk
    /// and run on a thread of their own; the store keeps its own work off the cooperative pool.
    ///
    /// A skins folder that cannot be read imports nothing and leaves the import pending (logged as a warning), so
    /// fixing `--skins-dir` before the first change still seeds the store. A cancelled task stops before its next
    /// skin (`Summary.stopped`), leaving the import pending.
    public func importIfPending() async throws(StoreError) -> Summary {
        var summary = Summary()
        guard try await isPending() else { return summary }
        summary.ran = true
        let skinsDirectory = skinsDirectory
        let folders = await BlockingWorkRunner.onOwnThread(name: "livery.import") { () -> [String]? in
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: skinsDirectory).sorted() else {
                return nil
            }
            return names.filter { name in
                let folder = skinsDirectory + "/" + name
                var isDirectory: ObjCBool = false
                return !name.hasPrefix(".")
                    && FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory)
                    && isDirectory.boolValue
                    && FileManager.default.fileExists(atPath: folder + "/skin.json")
            }
        }
        guard let folders else {
            logger.warning(
                "skins folder cannot be read; nothing imported (--skins-dir / LIVERY_SKINS_DIR)",
                metadata: ["skins.dir": "\(skinsDirectory)"])
            return summary
        }
        var seen = Set<String>()
        for name in folders {
            if Task.isCancelled {
                summary.stopped = true
                return summary
            }
            try await importFolder(skinsDirectory + "/" + name, name: name, seen: &seen, summary: &summary)
        }
        let note: JSONValue = [
            "skinsDirectory": .string(skinsDirectory), "imported": .array(summary.imported.map { .string($0) })
        ]
        let markerPath = markerPath
        let writeDurably = writeDurably
        do {
            try await BlockingWorkRunner.onOwnThread(name: "livery.import") { () throws in
                try writeDurably(markerPath, note.serialized(.pretty))
            }
        } catch {
            // The import itself is durable; without the marker it runs again next start and skips every skin.
            logger.error("cannot write the import marker", metadata: ["error": "\(error)"])
        }
        return summary
    }

    /// A folder read and validated: the skin to store, or why not.
    private enum Candidate: Sendable {
        case skin(ValidatedSkin, report: ValidationReport, files: [String: [UInt8]])
        case invalid(ValidationReport)
        case unreadable(String)
    }

    /// Validates the skin in `folder` and reads its files (blocking).
    private static func read(_ folder: String, limits: ValidationLimits) -> Candidate {
        let source = DirectorySkinSource(path: folder)
        let report = SkinValidator(limits: limits).validate(source)
        guard let skin = report.skin else { return .invalid(report) }
        var files: [String: [UInt8]] = [:]
        do {
            for file in try source.listFiles() { files[file.path] = try source.read(file.path) }
        } catch {
            return .unreadable("\(error)")
        }
        return .skin(skin, report: report, files: files)
    }

    private func importFolder(
        _ folder: String, name: String, seen: inout Set<String>, summary: inout Summary
    ) async throws(StoreError) {
        let limits = limits
        let candidate = await BlockingWorkRunner.onOwnThread(name: "livery.import") {
            Self.read(folder, limits: limits)
        }
        let skin: ValidatedSkin
        let report: ValidationReport
        let files: [String: [UInt8]]
        switch candidate {
        case .invalid(let invalid):
            summary.rejected.append(name)
            logger.error(
                "skin not imported: invalid",
                metadata: ["skin.folder": "\(folder)", "report": "\(invalid.renderedText(name: folder))"])
            return
        case .unreadable(let error):
            summary.rejected.append(name)
            logger.error("skin not imported: unreadable", metadata: ["skin.folder": "\(folder)", "error": "\(error)"])
            return
        case .skin(let valid, let validReport, let read):
            (skin, report, files) = (valid, validReport, read)
        }
        let id = skin.manifest.id.rawValue
        guard seen.insert(id).inserted else {
            summary.rejected.append(name)
            logger.error(
                "skin not imported: duplicate skin id", metadata: ["skin.folder": "\(folder)", "skin.id": "\(id)"])
            return
        }
        guard store.snapshot.revision(ofSkin: id) == 0 else {
            summary.alreadyStored.append(id)
            return
        }
        let metadata = VersionMetadata(
            source: "import", folder: name, skin: skin.manifest.jsonValue.objectValue,
            report: report.jsonValue.objectValue)
        let release = skin.manifest.release
        do throws(StoreError) {
            try await store.addVersion(
                skinID: id, files: files, metadata: metadata, expectedRevision: 0, release: release, actor: Self.actor)
        } catch .revisionMismatch {
            summary.alreadyStored.append(id)
            return
        }
        summary.imported.append(id)
        logger.info(
            "skin imported as version 1",
            metadata: ["skin.id": "\(id)", "skin.released": "\(release != nil)", "skin.files": "\(files.count)"])
    }
}
