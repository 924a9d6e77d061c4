/// The checks the store applies to every name it is given, even though callers validate first.
///
/// Skin ids and app ids never become path components in this store's layout, but they are keys of durable
/// records, appear in logs, and may become path components for other layers (package caches); so they are held
/// to path-component rules. Version file paths are relative, `/`-separated paths.
public enum StoreNames {
    /// Longest accepted skin id, app id or actor name, in UTF-8 bytes.
    public static let maximumNameLength = 255
    /// Longest accepted file path inside a version, in UTF-8 bytes.
    public static let maximumPathLength = 1024

    /// Throws unless `name` is usable as one path component: non-empty, at most `maximumNameLength` bytes,
    /// not `.` or `..`, and free of `/`, `\`, NUL and control characters.
    public static func checkName(_ name: String) throws(StoreError) {
        if let reason = problem(withComponent: name, limit: maximumNameLength) {
            throw .invalidName(name, reason: reason)
        }
    }

    /// Throws unless `path` is a relative `/`-separated path whose components each pass the component rules
    /// (so no absolute paths, no empty, `.` or `..` components, no NUL), at most `maximumPathLength` bytes.
    public static func checkPath(_ path: String) throws(StoreError) {
        guard !path.isEmpty else { throw .invalidPath(path, reason: "empty") }
        guard path.utf8.count <= maximumPathLength else {
            throw .invalidPath(path, reason: "longer than \(maximumPathLength) bytes")
        }
        guard path.utf8.first != UInt8(ascii: "/") else { throw .invalidPath(path, reason: "absolute") }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if let reason = problem(withComponent: String(component), limit: maximumPathLength) {
                throw .invalidPath(path, reason: "component \"\(component)\": \(reason)")
            }
        }
    }

    /// Throws unless `digest` is a SHA-256 digest in lowercase hex (64 characters).
    public static func checkDigest(_ digest: String) throws(StoreError) {
        let utf8 = digest.utf8
        let isHex = utf8.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
        }
        guard utf8.count == 64, isHex else { throw .invalidDigest(digest) }
    }

    private static func problem(withComponent name: String, limit: Int) -> String? {
        if name.isEmpty { return "empty" }
        if name.utf8.count > limit { return "longer than \(limit) bytes" }
        if name == "." || name == ".." { return "is \(name)" }
        for scalar in name.unicodeScalars {
            if scalar == "/" || scalar == "\\" { return "contains a path separator" }
            if scalar == "\0" { return "contains NUL" }
            if scalar.properties.generalCategory == .control { return "contains a control character" }
        }
        return nil
    }
}
