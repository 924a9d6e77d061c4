/// Failures while packing a skin.
public enum SkinPackageError: Error, Equatable, CustomStringConvertible {
    /// A file the plan references could not be read (relative path inside the skin).
    case unreadable(String)
    /// A file the plan references is now a symbolic link (relative path inside the skin): it was swapped after
    /// validation, which refuses links, and links are never followed while hashing or writing.
    case symbolicLink(String)
    /// A planned entry name was rejected by the zip writer.
    case invalidEntryName(String)
    /// The archive could not be written (or a source changed while it was); the message is the zip writer's
    /// log description, which names the output path and the system error: for operators and logs, not clients.
    case writeFailed(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read skin file '\(Self.printable(path))'"
        case .symbolicLink(let path): "skin file '\(Self.printable(path))' is a symbolic link (never followed)"
        case .invalidEntryName(let name): "invalid entry name '\(Self.printable(name))'"
        case .writeFailed(let message): "cannot write package: \(message)"
        }
    }

    /// `text` with control characters shown as `\u{85}`, so a hostile file name cannot rewrite a terminal or log line.
    private static func printable(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control
                ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
    }
}
