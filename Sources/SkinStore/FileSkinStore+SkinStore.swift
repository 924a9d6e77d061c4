import SkinModel

/// `FileSkinStore` in the `SkinStore` role, its one set of methods: each method that touches the disk runs the
/// blocking implementation of the same name (internal) on the store's own serial queue (never on Swift's
/// cooperative pool) and resumes the caller with its result. Changes are serialized by the store itself, so the
/// queue only keeps fsyncs off the pool. `audit` (in memory) and `close` (releases the lock) need no hop: their
/// synchronous methods in `FileSkinStore.swift` are the role's.
extension FileSkinStore: SkinStore {
    public var reports: any ReportLedger { reportLedger }

    @discardableResult
    public func addVersion(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int? = nil,
        release: ReleasePlan? = nil, actor: String
    ) async throws(StoreError) -> SkinVersion {
        try await offPool { () throws(StoreError) in
            try self.addVersion(
                skinID: skinID, files: files, metadata: metadata, expectedRevision: expectedRevision, release: release,
                actor: actor)
        }
    }

    public func addVersionUnlessUnchanged(
        skinID: String, files: [String: [UInt8]], metadata: VersionMetadata, expectedRevision: Int? = nil,
        actor: String
    ) async throws(StoreError) -> (version: SkinVersion, added: Bool) {
        try await offPool { () throws(StoreError) in
            try self.addVersionUnlessUnchanged(
                skinID: skinID, files: files, metadata: metadata, expectedRevision: expectedRevision, actor: actor)
        }
    }

    @discardableResult
    public func setRelease(
        skinID: String, version: Int, plan: ReleasePlan, expectedRevision: Int? = nil, actor: String,
        action: String = AuditAction.setRelease
    ) async throws(StoreError) -> SkinState {
        try await offPool { () throws(StoreError) in
            try self.setRelease(
                skinID: skinID, version: version, plan: plan, expectedRevision: expectedRevision, actor: actor,
                action: action)
        }
    }

    @discardableResult
    public func clearRelease(
        skinID: String, expectedRevision: Int? = nil, actor: String
    ) async throws(StoreError) -> SkinState {
        try await offPool { () throws(StoreError) in
            try self.clearRelease(skinID: skinID, expectedRevision: expectedRevision, actor: actor)
        }
    }

    @discardableResult
    public func setKillSwitch(
        app: String?, enabled: Bool, reason: String, expectedRevision: Int? = nil, actor: String
    ) async throws(StoreError) -> KillSwitches {
        try await offPool { () throws(StoreError) in
            try self.setKillSwitch(
                app: app, enabled: enabled, reason: reason, expectedRevision: expectedRevision, actor: actor)
        }
    }

    @discardableResult
    public func deleteSkin(
        skinID: String, force: Bool = false, expectedRevision: Int? = nil, actor: String
    ) async throws(StoreError) -> Int {
        try await offPool { () throws(StoreError) in
            try self.deleteSkin(skinID: skinID, force: force, expectedRevision: expectedRevision, actor: actor)
        }
    }

    public func change<Value: Sendable, Refusal: Error>(
        actor: String, upload: StoreUpload?,
        _ rule: @escaping @Sendable (StoreSnapshot) throws(Refusal) -> StoreDecision<Value>
    ) async throws(StoreError) -> Swift.Result<StoreOutcome<Value>, Refusal> {
        try await offPool { () throws(StoreError) in try self.change(actor: actor, upload: upload, rule) }
    }

    /// Only this process writes the store: the published snapshot is the current state.
    public func currentSnapshot() async throws(StoreError) -> StoreSnapshot { snapshot }

    public func fileBytes(skinID: String, version: Int, path: String) async throws(StoreError) -> [UInt8] {
        try await offPool(reading: true) { () throws(StoreError) in
            try self.fileBytes(skinID: skinID, version: version, path: path)
        }
    }

    public func verifiedFilePath(
        of file: StoredFile, skinID: String, version: Int
    ) async throws(StoreError) -> String {
        try await offPool(reading: true) { () throws(StoreError) in
            try self.verifiedBlobPath(of: file, skinID: skinID, version: version)
        }
    }
}
