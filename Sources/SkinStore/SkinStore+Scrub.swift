extension SkinStore {
    /// Keeps in the store which versions a scrub found unusable (`StoreScrubReport.damagedVersions`), so they are
    /// left out as damage found at load is (`SkinVersion.damage`: not served, not read, not released, reported),
    /// by every process that loads the store (every replica of a shared store, a restarted server) until a later
    /// scrub finds them sound again (restored from a backup): the marks of versions the report does not name are
    /// cleared.
    ///
    /// One change per skin whose marks differ (`StoreEdit.markScrubDamage`: the skin's revision moves on, audit
    /// action `damage.scrub` by `scrub`), each decided on the current state; a skin whose marks already agree, or
    /// that no longer exists, is left alone, so recording the same report twice changes nothing.
    ///
    /// - Returns: the ids of the skins changed, in order.
    /// - Throws: what `change` throws (`closed`, `io`, `unavailable`).
    @discardableResult
    public func recordScrub(_ report: StoreScrubReport) async throws(StoreError) -> [String] {
        let found = report.damagedVersions
        let current = try await currentSnapshot()
        let marked = current.skins.values.filter { skin in skin.versions.contains { $0.scrubDamage != nil } }.map(\.id)
        var changed: [String] = []
        for skinID in Set(found.keys).union(marked).sorted() {
            let marks = found[skinID] ?? [:]
            let outcome = try await change(actor: StoreScrubReport.actor, upload: nil) { state throws(Never) in
                guard let skin = state.skins[skinID],
                    skin.versions.contains(where: { $0.scrubDamage != marks[$0.number] })
                else { return .unchanged(false) }
                return StoreDecision(edit: .markScrubDamage(skinID: skinID, versions: marks), value: true)
            }
            if case .success(let outcome) = outcome, outcome.changed { changed.append(skinID) }
        }
        return changed
    }
}
