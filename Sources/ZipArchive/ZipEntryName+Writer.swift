import ZipReading

extension ZipEntryName {
    /// Checks `raw` and wraps it: the writer's way to name an entry.
    ///
    /// - Throws: `ZipError.invalidEntryName` saying which rule the name breaks.
    public init(_ raw: String) throws(ZipError) {
        do {
            try self.init(validating: Array(raw.utf8))
        } catch {
            throw .invalidEntryName(name: raw, violation: error)
        }
    }
}
