/// A setting that stops `livery serve` from starting. Its `description` is one line naming the setting the way it
/// was given (`--port 'eighty'`, `LIVERY_PORT='eighty'`, or the default with both of its names) and the problem.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The setting at fault.
    public let setting: LiveryConfiguration.Setting
    /// Where its value came from.
    public let source: LiveryConfiguration.Source
    /// The value as given (or the default).
    public let value: String
    /// What is wrong, such as `not a whole number from 0 to 65535`.
    public let problem: String

    public init(
        setting: LiveryConfiguration.Setting, source: LiveryConfiguration.Source, value: String, problem: String
    ) {
        self.setting = setting
        self.source = source
        self.value = value
        self.problem = problem
    }

    public var description: String {
        let shown = Self.printable(value)
        let origin =
            switch source {
            case .flag: "\(setting.flag) '\(shown)'"
            case .environment: "\(setting.environmentVariable)='\(shown)'"
            case .defaultValue:
                "\(setting.flag) default '\(shown)' (\(setting.environmentVariable) not set)"
            }
        return "\(origin): \(problem)"
    }

    /// The value with control characters escaped, so the message stays on one line.
    static func printable(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
