import Foundation

/// The SDK's folder, laid out so that a crash at any instant leaves either the old state or the new one:
///
/// ```
/// state.json            the pointer: which packages exist and which applies (replaced by write, fsync, rename)
/// catalog.json          the verified catalog and its entity tag (replaced the same way)
/// reports.json          skins' outcomes not yet reported, and this install's report id (replaced the same way)
/// packages/<sign>/      unpacked, verified packages; a folder appears whole, by rename from staging/
/// downloads/<sign>.part a download in progress (resumed with Range), with <sign>.etag beside it
/// staging/              unpacking in progress; emptied at every launch
/// ```
///
/// All file work here is blocking: callers run it off the cooperative pool.
struct SkinStorage: Sendable {
    let root: URL

    var stateFile: URL { root.appendingPathComponent("state.json") }
    var catalogFile: URL { root.appendingPathComponent("catalog.json") }
    var reportsFile: URL { root.appendingPathComponent("reports.json") }
    var packages: URL { root.appendingPathComponent("packages", isDirectory: true) }
    var downloads: URL { root.appendingPathComponent("downloads", isDirectory: true) }
    var staging: URL { root.appendingPathComponent("staging", isDirectory: true) }

    func packageFolder(_ sign: String) -> URL { packages.appendingPathComponent(sign, isDirectory: true) }
    func partFile(_ sign: String) -> URL { downloads.appendingPathComponent(sign + ".part") }
    func etagFile(_ sign: String) -> URL { downloads.appendingPathComponent(sign + ".etag") }

    /// Creates the folders and empties `staging/` (a launch after a crash finds at most a half-unpacked folder there).
    func prepare() throws(LiveryError) {
        let files = FileManager.default
        do {
            for folder in [root, packages, downloads, staging] where !files.fileExists(atPath: folder.path) {
                try files.createDirectory(at: folder, withIntermediateDirectories: true)
            }
        } catch {
            throw LiveryError.disk("cannot create", root.path, error)
        }
        for name in (try? files.contentsOfDirectory(atPath: staging.path)) ?? [] {
            try? files.removeItem(at: staging.appendingPathComponent(name))
        }
    }

    func hasPackage(_ sign: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: packageFolder(sign).path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// Whether `state.json` exists.
    var hasState: Bool { FileManager.default.fileExists(atPath: stateFile.path) }

    /// The stored state, nil when there is none or it is unreadable.
    func loadState() -> StoredState? {
        guard let data = FileManager.default.contents(atPath: stateFile.path) else { return nil }
        return StoredState.read([UInt8](data))
    }

    /// Replaces `state.json` atomically: a temporary file beside it, written and fsynced, renamed over it, then the
    /// folder fsynced, so a crash leaves the old state or the new one.
    func saveState(_ state: StoredState) throws(LiveryError) {
        try Self.writeDurably(state.serialized(), to: stateFile)
    }

    /// The stored catalog of `app` and `platform`, nil when there is none, it is unreadable, or it is another's.
    func loadCatalog(app: String, platform: String) -> StoredCatalog? {
        guard let data = FileManager.default.contents(atPath: catalogFile.path) else { return nil }
        return StoredCatalog.read([UInt8](data), app: app, platform: platform)
    }

    /// Replaces `catalog.json` atomically, as `saveState`.
    func saveCatalog(_ catalog: StoredCatalog) throws(LiveryError) {
        try Self.writeDurably(catalog.serialized(), to: catalogFile)
    }

    /// The outcome queue, nil when there is none or it is unreadable.
    func loadReports() -> StoredReports? {
        guard let data = FileManager.default.contents(atPath: reportsFile.path) else { return nil }
        return StoredReports.read([UInt8](data))
    }

    /// Replaces `reports.json` atomically, as `saveState`.
    func saveReports(_ reports: StoredReports) throws(LiveryError) {
        try Self.writeDurably(reports.serialized(), to: reportsFile)
    }

    /// Removes `catalog.json` (a server without the catalog, or an app it does not know).
    func removeCatalog() throws(LiveryError) {
        guard FileManager.default.fileExists(atPath: catalogFile.path) else { return }
        do {
            try FileManager.default.removeItem(at: catalogFile)
        } catch {
            throw LiveryError.disk("cannot remove", catalogFile.path, error)
        }
    }

    static func writeDurably(_ bytes: [UInt8], to file: URL) throws(LiveryError) {
        let folder = file.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".tmp-\(file.lastPathComponent)-\(UUID().uuidString)")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: Data(bytes))
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw LiveryError.disk("cannot write", file.path, error)
        }
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw LiveryError(.disk, "cannot replace \(file.path): \(reason)")
        }
        if let folderHandle = try? FileHandle(forReadingFrom: folder) {
            try? folderHandle.synchronize()
            try? folderHandle.close()
        }
    }

    /// Removes every package, download and stray file not named by `keep`.
    func prune(keep: Set<String>) {
        let files = FileManager.default
        for name in (try? files.contentsOfDirectory(atPath: packages.path)) ?? [] where !keep.contains(name) {
            try? files.removeItem(at: packages.appendingPathComponent(name))
        }
        for name in (try? files.contentsOfDirectory(atPath: downloads.path)) ?? [] {
            let sign =
                name.hasSuffix(".part")
                ? String(name.dropLast(5)) : name.hasSuffix(".etag") ? String(name.dropLast(5)) : ""
            if !keep.contains(sign) { try? files.removeItem(at: downloads.appendingPathComponent(name)) }
        }
        for name in (try? files.contentsOfDirectory(atPath: root.path)) ?? [] where name.hasPrefix(".tmp-") {
            try? files.removeItem(at: root.appendingPathComponent(name))
        }
    }
}
