/// The outcome of validating a skin: every issue found, and the validated skin when there were no errors.
///
/// Invariant: `skin != nil` exactly when `issues` holds no error. Issues are in a deterministic order
/// (file checks in path order, then `skin.json`, `config.json` in document order, then asset checks).
public struct ValidationReport: Sendable, Equatable {
    /// Errors and warnings.
    public let issues: [ValidationIssue]
    /// The validated skin, present iff the report is valid.
    public let skin: ValidatedSkin?
    /// The manifest when `skin.json` parsed, even if other parts are invalid (useful to name the skin).
    public let manifest: SkinManifest?
    /// Coverage against the app's base config, when one was given.
    public let coverage: CoverageReport?

    init(issues: [ValidationIssue], skin: ValidatedSkin?, manifest: SkinManifest?, coverage: CoverageReport?) {
        self.issues = issues
        self.skin = issues.contains { $0.severity == .error } ? nil : skin
        self.manifest = manifest
        self.coverage = coverage
    }

    /// The issues with severity `.error`.
    public var errors: [ValidationIssue] { issues.filter { $0.severity == .error } }
    /// The issues with severity `.warning`.
    public var warnings: [ValidationIssue] { issues.filter { $0.severity == .warning } }
    /// Whether the skin can be stored and packed.
    public var isValid: Bool { skin != nil }
    /// Whether the source itself could not be read (as opposed to holding an invalid skin).
    public var sourceWasUnreadable: Bool { issues.contains { $0.code == .sourceUnreadable } }
}
