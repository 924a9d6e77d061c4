import LiveryJSON

/// The address of one value in `config.json`: module, section and (possibly dotted) identifier.
///
/// Written `MODULE/SECTION/IDENTIFIER`, e.g. `home/colors/color.background.tableview`; a leading `/` is accepted
/// so JSON pointers from a report can be pasted. The identifier may itself contain `/`.
/// Invariant: `identifier` is `__default__` or non-empty dot-separated parts, none of them empty.
public struct ConfigKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The identifier consulted when nothing on the dotted chain is set.
    public static let defaultIdentifier = "__default__"

    public let module: String
    public let section: ConfigSection
    public let identifier: String

    /// `nil` when `identifier` has an empty dotted part.
    public init?(module: String, section: ConfigSection, identifier: String) {
        guard ConfigKey.isValidIdentifier(identifier) else { return nil }
        self.module = module
        self.section = section
        self.identifier = identifier
    }

    /// Parses `MODULE/SECTION/IDENTIFIER`; `nil` when a part is missing or empty, the section is unknown or
    /// the identifier is malformed.
    public init?(parsing text: String) {
        let trimmed = text.hasPrefix("/") ? String(text.dropFirst()) : text
        let parts = trimmed.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let section = ConfigSection(rawValue: String(parts[1])) else {
            return nil
        }
        self.init(module: String(parts[0]), section: section, identifier: String(parts[2]))
    }

    /// Whether `identifier` is non-empty with no empty dotted part.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        !identifier.isEmpty
            && !identifier.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
    }

    /// The same module and section with another identifier.
    func with(identifier: String) -> ConfigKey? { ConfigKey(module: module, section: section, identifier: identifier) }

    /// The JSON pointer of this key in `config.json`.
    public var pointer: JSONPointer { JSONPointer(tokens: [module, section.rawValue, identifier]) }

    public var description: String { "\(module)/\(section.rawValue)/\(identifier)" }

    public static func < (lhs: ConfigKey, rhs: ConfigKey) -> Bool {
        if lhs.module != rhs.module { return bytewiseLess(lhs.module, rhs.module) }
        if lhs.section != rhs.section { return lhs.section < rhs.section }
        return bytewiseLess(lhs.identifier, rhs.identifier)
    }
}
