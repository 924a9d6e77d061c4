/// A change's precondition on the revision of what it changes: the admin API's `If-Match` (RFC 9110 §13.1.1),
/// checked by the change's rule on the state it is committed on.
///
/// A skin's revision is `SkinState.revision`, the kill switches' `KillSwitches.revision`.
public enum ChangeCondition: Sendable, Equatable {
    /// Unconditional.
    case none
    /// Any existing resource (`If-Match: *`).
    case any
    /// One of these revisions.
    case revisions([Int])

    /// Refuses the change when the condition fails against `current`.
    ///
    /// - Throws: `preconditionFailed` naming `current` when revisions are listed and `current` is not one of
    ///   them. (`any` is checked by each rule: it needs the resource to exist.)
    public func check(current: Int) throws(ChangeError) {
        guard case .revisions(let revisions) = self, !revisions.contains(current) else { return }
        throw .preconditionFailed(current: current)
    }
}
