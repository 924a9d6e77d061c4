import Testing

extension Trait where Self == TimeLimitTrait {
    /// Fails a test that hangs, so a run ends with its name instead of running into CI's deadline; it is not a
    /// speed check.
    ///
    /// A time limit counts from the moment the test starts, and the whole run starts nearly every test at once on a
    /// cooperative pool as wide as the cores: a test that would take seconds alone can wait behind the rest of the
    /// run for as long as the run lasts (a CI run on two cores finished tests of a few seconds after 240-275 s, and
    /// timed one out at a three-minute limit). So the one limit is well past a whole run's length on a slow machine
    /// and well under CI's own: fifteen minutes. How fast something must be is measured under `bench/`.
    public static var hangGuard: Self { .timeLimit(.minutes(15)) }
}
