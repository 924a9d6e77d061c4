/// Whether `condition` comes to hold: checked at once, then every `interval` until it does, and once more after
/// `limit` has passed, so a wait that the cooperative pool held up past its deadline still gets its last look.
///
/// For conditions that the test's own awaits make progress on (a replica following a change, a retried build):
/// the pool on Linux is as wide as the cores and the whole run shares it, so an await can resume tens of seconds
/// late (docs/TESTING.md). The limit bounds a wait for something that must happen; it is not a speed check.
public func eventually(
    within limit: Duration = .seconds(120), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}
