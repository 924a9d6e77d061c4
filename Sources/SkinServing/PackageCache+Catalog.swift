extension PackageCache {
    /// The package a download of `sign` gets while `catalog` is served: one of the catalog's packages (rebuilt from
    /// its origin if its file disappeared from the cache), else a package recorded earlier in this process whose file
    /// is still in place (a retired package an app may still hold); nil when there is none.
    ///
    /// - Throws: what rebuilding the package throws.
    public nonisolated func package(sign: String, in catalog: Catalog) async throws -> PackageRecord? {
        if let known = catalog.packages[sign], let origin = catalog.origins[sign] {
            return try await record(sign: sign, variant: known.variant, packager: origin.packager)
        }
        return readyRecord(sign: sign)
    }
}
