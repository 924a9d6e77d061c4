/// A skin held in memory, such as the entries of an uploaded zip.
public struct InMemorySkinSource: SkinSource {
    /// One stored entry with the facts a zip reader knows about it.
    public struct Entry: Sendable, Hashable {
        public var path: String
        public var bytes: [UInt8]
        public var kind: SkinFile.Kind
        public var nameIsValidUTF8: Bool

        public init(path: String, bytes: [UInt8], kind: SkinFile.Kind = .regular, nameIsValidUTF8: Bool = true) {
            self.path = path
            self.bytes = bytes
            self.kind = kind
            self.nameIsValidUTF8 = nameIsValidUTF8
        }
    }

    private let entries: [String: Entry]

    /// Regular files by skin-relative path.
    public init(files: [String: [UInt8]]) {
        self.init(entries: files.map { Entry(path: $0.key, bytes: $0.value) })
    }

    /// Entries with explicit kinds and name flags; a repeated path keeps the last entry.
    public init(entries: [Entry]) {
        var byPath: [String: Entry] = [:]
        for entry in entries { byPath[entry.path] = entry }
        self.entries = byPath
    }

    public func listFiles() throws(SkinSourceError) -> [SkinFile] {
        entries.values
            .map { SkinFile(path: $0.path, size: $0.bytes.count, kind: $0.kind, nameIsValidUTF8: $0.nameIsValidUTF8) }
            .sorted { bytewiseLess($0.path, $1.path) }
    }

    public func read(_ path: String) throws(SkinSourceError) -> [UInt8] {
        guard let entry = entries[path] else { throw .notFound(path) }
        guard entry.kind == .regular else { throw .notARegularFile(path) }
        return entry.bytes
    }
}
