import CoreMetrics

/// Counts changes made through the admin API: `livery_admin_changes_total{action="…"}`.
///
/// Counted by `Changes` once a change is committed and published (never for a refused or failed request):
/// `AdminChangeCounter().increment(action: "release")`. `action` must come from code, not from a request — one of
/// `knownActions` or another fixed word of `a-z` and `_` — so the series stay few.
public struct AdminChangeCounter: Sendable {
    /// The series name.
    public static let name = "livery_admin_changes_total"
    /// Actions whose series exist from startup (at zero): upload a skin version, change its release (schedule,
    /// rollout, targeting), set a kill switch, roll back to an earlier version.
    public static let knownActions = ["push", "release", "killswitch", "rollback"]

    private let factory: any MetricsFactory

    /// - Parameter factory: where the counter goes (the process-wide factory by default).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// Adds one change of kind `action`.
    public func increment(action: String) {
        Counter(label: Self.name, dimensions: [("action", action)], factory: factory).increment()
    }

    /// Makes the series of `actions` exist at zero.
    public func declare(_ actions: [String]) {
        for action in actions {
            Counter(label: Self.name, dimensions: [("action", action)], factory: factory).increment(by: 0)
        }
    }
}
