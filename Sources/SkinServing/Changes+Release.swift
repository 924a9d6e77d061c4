import SkinModel
import SkinStore

extension Changes {
    /// Releases what `kind` means for skin `id` (see `ChangeRules.release`): decides the version on the current
    /// state, builds its packages (outside any lock or transaction: other changes, the kill switch first, go on
    /// meanwhile), then decides again inside the store change and commits only if the state still means that
    /// version — else builds the version it now means and tries again, `releaseAttempts` times at most.
    ///
    /// - Returns: the skin after the release.
    /// - Throws: the rule's refusals; `versionNotServable`, `versionDamaged` for a version whose packages cannot
    ///   be built; `storeUnavailable` when the version kept changing, and store failures.
    public func release(
        _ kind: ChangeRules.ReleaseKind, skinID id: String, condition: ChangeCondition, by caller: Caller
    ) async throws(ChangeError) -> SkinState {
        let now = clock()
        var state = try await currentState(requestID: caller.requestID)
        var prepared: SkinVersion?
        for _ in 0..<Self.releaseAttempts {
            let (version, plan) = try ChangeRules.release(kind, id: id, condition: condition, now: now, state: state)
            if prepared?.number != version.number || prepared?.digest != version.digest {
                try await prepare(version: version, plan: plan, id: id, caller: caller)
                prepared = version
            }
            let built = (number: version.number, digest: version.digest)
            let counted: Kind = if case .rollback = kind { .rollback } else { .release }
            let outcome = try await commit(counted, by: caller, field: "version") { state throws(ChangeError) in
                try ChangeRules.releaseDecision(
                    kind, id: id, condition: condition, now: now, prepared: built, state: state)
            } log: { outcome in
                guard case .released(let number, let plan) = outcome.value else { return nil }
                return (
                    .info, "skin released",
                    [
                        "skin.id": "\(id)", "skin.version": "\(number)", "action": "\(kind.auditAction)",
                        "actor": "\(caller.actor)", "release.rollout": "\(plan.rollout)"
                    ]
                )
            }
            guard case .released = outcome.value, let updated = outcome.state.skins[id] else {
                state = outcome.state
                continue
            }
            return updated
        }
        throw .storeUnavailable(field: "store")
    }

    /// Builds the packages of `version` (every variant), so the catalog that releases it never waits for one.
    private func prepare(version: SkinVersion, plan: ReleasePlan, id: String, caller: Caller) async throws(ChangeError)
    {
        do throws(ServingError) {
            try await catalog.builder.prepare(version: version, plan: plan)
        } catch {
            if case .invalidVersion = error {
            } else {
                logger.error(
                    "cannot prepare a release",
                    metadata: ["request.id": "\(caller.requestID)", "skin.id": "\(id)", "error": "\(error)"])
            }
            throw ChangeError(error)
        }
    }
}
