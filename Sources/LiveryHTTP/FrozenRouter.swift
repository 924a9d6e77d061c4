#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The immutable, `Sendable` form of a `Router`: a tree of path segments answering `HTTPRouting.route`.
///
/// Lookup walks the path once per candidate branch: literal children first, then the parameter child, with
/// backtracking, so `/a/b` registered for GET and `/a/:x` for POST both work for their methods. Cost is linear
/// in the number of segments for typical route sets and allocates only for decoded segments longer than 15
/// bytes and for parameter values.
public final class FrozenRouter: HTTPRouting {
    final class Entry: Sendable {
        let method: HTTPMethod
        let parameterNames: [String]
        /// Pattern, body limit, head check and handler, shared by every route this entry answers.
        let target: HTTPRoute.Target
        /// The route answered for this entry when its pattern has no parameters, built once.
        let parameterlessRoute: HTTPRoute?

        init(
            method: HTTPMethod, pattern: String, parameterNames: [String], bodyLimit: Int?, headCheck: HTTPHeadCheck?,
            handler: HTTPHandler
        ) {
            self.method = method
            self.parameterNames = parameterNames
            target = HTTPRoute.Target(pattern: pattern, bodyLimit: bodyLimit, headCheck: headCheck, handler: handler)
            parameterlessRoute = parameterNames.isEmpty ? HTTPRoute(target: target) : nil
        }

        /// The route for a match with these parameter values (in `parameterNames` order).
        func route(values: [String]) -> HTTPRoute {
            if let parameterlessRoute { return parameterlessRoute }
            return HTTPRoute(target: target, pathParameters: PathParameters(names: parameterNames, values: values))
        }

        /// The route for a match of a one-parameter pattern whose value is the bytes of `path` from `offset` on.
        func route(path: Substring, valueFrom offset: Int) -> HTTPRoute {
            HTTPRoute(target: target, pathParameters: PathParameters(names: parameterNames, only: path, from: offset))
        }
    }

    final class Node: Sendable {
        /// Literal children, compared byte for byte against raw segments (small sets), or looked up in
        /// `literalIndex` (more than 8 children).
        let literalKeys: [[UInt8]]
        let literalNodes: [Node]
        let literalIndex: [String: Node]?
        let parameter: Node?
        let entries: [Entry]
        /// The 405 answer for this node, with `Allow` listing its methods (and HEAD when GET is present).
        let methodNotAllowed: HTTPRoute?

        init(literals: [String: Node], parameter: Node?, entries: [Entry]) {
            let sortedKeys = literals.keys.sorted()
            self.literalKeys = sortedKeys.map { Array($0.utf8) }
            self.literalNodes = sortedKeys.compactMap { literals[$0] }
            self.literalIndex = literals.count > 8 ? literals : nil
            self.parameter = parameter
            self.entries = entries
            if entries.isEmpty {
                methodNotAllowed = nil
            } else {
                var methods = entries.map(\.method.rawValue)
                if methods.contains("GET") && !methods.contains("HEAD") { methods.append("HEAD") }
                let allow = methods.joined(separator: ", ")
                let response: HTTPResponse = {
                    HTTPResponse.error(
                        .methodNotAllowed, code: "method_not_allowed",
                        message: "This path does not support the method.",
                        details: [("field", "method"), ("reason", "this path allows \(allow)")],
                        headers: HTTPHeaders([("Allow", allow)]))
                }()
                methodNotAllowed = HTTPRoute(pattern: nil, handler: .sync { _ in response })
            }
        }

        func entry(for method: HTTPMethod) -> Entry? {
            for entry in entries where entry.method == method { return entry }
            if method == .head {
                for entry in entries where entry.method == .get { return entry }
            }
            return nil
        }

        /// The literal child for a decoded segment.
        func literal(_ segment: UnsafeBufferPointer<UInt8>) -> Node? {
            if let literalIndex { return literalIndex[String(decoding: segment, as: UTF8.self)] }
            return FrozenRouter.position(of: segment, in: literalKeys).map { literalNodes[$0] }
        }
    }

    /// Mutable tree used while freezing.
    private final class Builder {
        var literals: [String: Builder] = [:]
        var parameter: Builder?
        var entries: [Entry] = []

        /// The immutable tree; `frozen` maps each builder to the node it became.
        func freeze(into frozen: inout [ObjectIdentifier: Node]) -> Node {
            let node = Node(
                literals: literals.mapValues { $0.freeze(into: &frozen) }, parameter: parameter?.freeze(into: &frozen),
                entries: entries)
            frozen[ObjectIdentifier(self)] = node
            return node
        }
    }

    private let root: Node
    /// Nodes reached by parameterless patterns, by the byte count of their path (`literalPaths[n]` holds the
    /// n-byte ones). A raw path that spells such a pattern byte for byte is its own decoded form, and the tree
    /// walk would reach that node first (literals are tried before parameters), so most requests skip the walk.
    private let literalPaths: [[(path: [UInt8], node: Node)]]
    /// Patterns of literal segments and then one parameter (`/api/v1/packages/:file`), by the byte count of their
    /// literal prefix with its slashes (`/api/v1/packages/`): `trailingParameters[n]` holds the n-byte prefixes, with
    /// the node the prefix reaches and that node's parameter child. A raw path that spells such a prefix byte for
    /// byte and ends in one segment without `%` that is no literal child of that node goes where the tree walk
    /// would go first (literals before parameters at every level), so it skips the walk.
    private let trailingParameters: [[TrailingPattern]]

    /// One entry of `trailingParameters`: what the tree walk would consult, read from the tree once (so a lookup
    /// touches no node).
    private struct TrailingPattern {
        /// The literal prefix with its slashes.
        let prefix: [UInt8]
        /// The literal children of the node the prefix reaches: a last segment spelling one is left to the walk.
        let literalSiblings: [[UInt8]]
        /// The entries of the parameter child for GET and for HEAD (GET's when HEAD has none, as
        /// `Node.entry(for:)` answers); other methods are left to the walk.
        let get: Entry?
        let head: Entry?

        init(prefix: [UInt8], parent: Node, parameter: Node) {
            self.prefix = prefix
            literalSiblings = parent.literalKeys
            get = parameter.entry(for: .get)
            head = parameter.entry(for: .head)
        }

        /// Whether `segment` spells one of `literalSiblings`.
        func isSibling(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
            FrozenRouter.position(of: segment, in: literalSiblings) != nil
        }
    }
    private let notFound = HTTPRoute(
        pattern: nil,
        handler: .sync { _ in
            .error(
                .notFound, code: "not_found", message: "No resource at this path.",
                details: [("field", "path"), ("reason", "no resource at this path")])
        })

    /// What this router was built from, to build replicas.
    private let registrations: [Router.Registration]
    /// Whether a parameterless route's handler has a view path, and whether a route of literal segments and then
    /// one parameter has (`viewEntry(method:path:)` looks only where one has, so other requests pay almost nothing).
    private let literalViews: Bool
    /// The shortest path that can match such a pattern with a view path (its literal prefix and one byte);
    /// `Int.max` for none.
    private let trailingViewMinimumLength: Int
    /// Whether a path of `pathLength` bytes may have a route with a view path (if not, `viewEntry(method:path:)`
    /// is nil for it).
    func mayHaveView(pathLength: Int) -> Bool { literalViews || pathLength >= trailingViewMinimumLength }

    /// Whether any route's handler has a view path that `viewEntry(method:path:)` can find.
    var hasViews: Bool { literalViews || trailingViewMinimumLength < .max }

    /// Another tree of the same registrations: its entries, targets, patterns, parameter names and handler closures
    /// (`HTTPHandler.replica()`, which call the registered ones) are its own.
    public func replica() -> any HTTPRouting {
        FrozenRouter(
            registrations: registrations.map { registration in
                Router.Registration(
                    method: registration.method, pattern: registration.pattern, bodyLimit: registration.bodyLimit,
                    headCheck: registration.headCheck, handler: registration.handler.replica())
            })
    }

    init(registrations: [Router.Registration]) {
        self.registrations = registrations
        var literalViews = false
        var trailingViewMinimumLength = Int.max
        let root = Builder()
        var literalPatterns: [String: Builder] = [:]
        var trailingPatterns: [String: (parent: Builder, parameter: Builder)] = [:]
        for registration in registrations {
            var node = root
            var names: [String] = []
            var prefix = "/"
            var parent = root
            for segment in registration.pattern.segments {
                parent = node
                switch segment {
                case .literal(let text):
                    let child = node.literals[text] ?? Builder()
                    node.literals[text] = child
                    node = child
                    if names.isEmpty { prefix += text + "/" }
                case .parameter(let name):
                    let child = node.parameter ?? Builder()
                    node.parameter = child
                    node = child
                    names.append(name)
                }
            }
            if names.count == 1, case .parameter? = registration.pattern.segments.last {
                trailingPatterns[prefix] = (parent, node)
                // The literal prefix with its slashes, then at least one byte of the value.
                if registration.handler.view != nil {
                    trailingViewMinimumLength = min(trailingViewMinimumLength, prefix.utf8.count + 1)
                }
            }
            // A pattern string of this tree's own (not the registration's), so replicas share no string storage.
            let pattern = String(decoding: Array(registration.pattern.description.utf8), as: UTF8.self)
            node.entries.append(
                Entry(
                    method: registration.method, pattern: pattern, parameterNames: names,
                    bodyLimit: registration.bodyLimit, headCheck: registration.headCheck, handler: registration.handler)
            )
            if names.isEmpty {
                literalPatterns[registration.pattern.description] = node
                literalViews = literalViews || registration.handler.view != nil
            }
        }
        self.literalViews = literalViews
        self.trailingViewMinimumLength = trailingViewMinimumLength
        var frozen: [ObjectIdentifier: Node] = [:]
        self.root = root.freeze(into: &frozen)
        var literalPaths: [[(path: [UInt8], node: Node)]] = []
        for (path, builder) in literalPatterns.sorted(by: { $0.key < $1.key }) {
            guard let node = frozen[ObjectIdentifier(builder)] else { continue }
            let bytes = Array(path.utf8)
            while literalPaths.count <= bytes.count { literalPaths.append([]) }
            literalPaths[bytes.count].append((bytes, node))
        }
        self.literalPaths = literalPaths
        var trailingParameters: [[TrailingPattern]] = []
        for (prefix, builders) in trailingPatterns.sorted(by: { $0.key < $1.key }) {
            guard let parent = frozen[ObjectIdentifier(builders.parent)],
                let parameter = frozen[ObjectIdentifier(builders.parameter)]
            else { continue }
            let bytes = Array(prefix.utf8)
            while trailingParameters.count <= bytes.count { trailingParameters.append([]) }
            trailingParameters[bytes.count].append(TrailingPattern(prefix: bytes, parent: parent, parameter: parameter))
        }
        self.trailingParameters = trailingParameters
    }

    /// The route for `method` on `rawPath`: the matching registration (HEAD falls back to GET), else a 405
    /// with `Allow` if the path has routes for other methods, else a 404.
    public func route(method: HTTPMethod, rawPath: Substring) -> HTTPRoute {
        if let route = rawPath.utf8.withContiguousStorageIfAvailable({ route(method: method, path: $0, raw: rawPath) })
        {
            return route
        }
        let copy = Array(rawPath.utf8)
        return copy.withUnsafeBufferPointer { route(method: method, path: $0, raw: rawPath) }
    }

    /// `path` holds the bytes of `raw`.
    private func route(method: HTTPMethod, path: UnsafeBufferPointer<UInt8>, raw: Substring) -> HTTPRoute {
        guard path.first == UInt8(ascii: "/") else { return notFound }
        if let node = literalPath(path), let entry = node.entry(for: method) { return entry.route(values: []) }
        if let route = trailingParameterRoute(path, raw: raw, method: method) { return route }
        // Segments start after the leading "/"; "/" alone is the root, with no segment.
        let start = path.count == 1 ? nil : 1 as Int?
        var values: [String] = []
        if let entry = Self.find(root, path, from: start, &values, method: method) {
            return entry.route(values: values)
        }
        if let node = Self.findNode(root, path, from: start), let methodNotAllowed = node.methodNotAllowed {
            return methodNotAllowed
        }
        return notFound
    }

    /// The node of the parameterless pattern spelled exactly `path`, or nil. Patterns never hold `%`, so a path
    /// that matches one has nothing to decode.
    private func literalPath(_ path: UnsafeBufferPointer<UInt8>) -> Node? {
        guard path.count < literalPaths.count, let bytes = path.baseAddress else { return nil }
        for candidate in literalPaths[path.count] {
            let equal = candidate.path.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes, path.count) == 0 }
            if equal { return candidate.node }
        }
        return nil
    }

    /// The route of a pattern in `trailingParameters` that `path` matches for `method` as the tree walk would
    /// match it; nil when none does, or when the walk must decide (`trailingParameterMatch(_:method:)`).
    /// The value is read from `raw` (whose bytes `path` holds) when asked for, not copied.
    private func trailingParameterRoute(
        _ path: UnsafeBufferPointer<UInt8>, raw: Substring, method: HTTPMethod
    ) -> HTTPRoute? {
        guard let (entry, valueStart) = trailingParameterMatch(path, method: method) else { return nil }
        return entry.route(path: raw, valueFrom: valueStart)
    }

    /// The entry of a pattern in `trailingParameters` that `path` matches for `method` as the tree walk would
    /// match it, with the offset where the parameter's value starts; nil when none does, or when the walk must
    /// decide (a `%` to decode in the last segment, a literal child of that name, a method other than GET and
    /// HEAD, no entry for the method).
    private func trailingParameterMatch(
        _ path: UnsafeBufferPointer<UInt8>, method: HTTPMethod
    ) -> (entry: Entry, valueStart: Int)? {
        guard let bytes = path.baseAddress else { return nil }
        let prefixLength = Self.lastSlashEnd(bytes, count: path.count)
        guard prefixLength > 0, prefixLength < path.count, prefixLength < trailingParameters.count,
            memchr(bytes + prefixLength, Int32(UInt8(ascii: "%")), path.count - prefixLength) == nil
        else { return nil }
        guard method == .get || method == .head else { return nil }
        return trailingParameters[prefixLength].withUnsafeBufferPointer { candidates -> (Entry, Int)? in
            // Read in place (a copy of a candidate would retain its four fields).
            for index in candidates.indices {
                let equal = candidates[index].prefix.withUnsafeBufferPointer { prefix in
                    prefix.baseAddress.map { memcmp($0, bytes, prefixLength) == 0 } ?? false
                }
                guard equal else { continue }
                let segment = UnsafeBufferPointer(start: bytes + prefixLength, count: path.count - prefixLength)
                guard !candidates[index].isSibling(segment),
                    let entry = method == .get ? candidates[index].get : candidates[index].head
                else { return nil }
                return (entry, prefixLength)
            }
            return nil
        }
    }

    /// The entry answering `method` on the raw path `path` (validated, its own decoded form) when its handler has a
    /// view path (`HTTPHandler.answeringViews(_:)`) and the quick lookups decide the match as the tree walk would:
    /// a parameterless pattern spelled byte for byte, or literal segments and then one parameter. With the offset
    /// where the parameter's value starts (the path's length for none). nil otherwise, and at once when no route
    /// has a view path.
    func viewEntry(method: HTTPMethod, path: UnsafeBufferPointer<UInt8>) -> (entry: Entry, valueStart: Int)? {
        guard path.first == UInt8(ascii: "/") else { return nil }
        if literalViews, let node = literalPath(path) {
            guard let entry = node.entry(for: method), entry.target.handler.view != nil else { return nil }
            return (entry, path.count)
        }
        guard path.count >= trailingViewMinimumLength, let match = trailingParameterMatch(path, method: method),
            match.entry.target.handler.view != nil
        else { return nil }
        return match
    }

    /// The length of the first `count` bytes at `bytes` up to and including the last `/`; 0 without one. Eight bytes
    /// at a time from the end (a segment such as a package's 36-byte name is mostly skipped whole), then byte by byte
    /// in the word that holds it.
    @inline(__always)
    static func lastSlashEnd(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int {
        let raw = UnsafeRawPointer(bytes)
        var end = count
        while end >= 8 {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
            // A "/" is a zero byte once the word is XORed with "/"s (the classic has-a-zero-byte test: exact as a
            // yes or no, which is all it is used for here).
            let matches = word ^ 0x2F2F_2F2F_2F2F_2F2F
            if (matches &- 0x0101_0101_0101_0101) & ~matches & 0x8080_8080_8080_8080 != 0 { break }
            end -= 8
        }
        while end > 0 && bytes[end - 1] != UInt8(ascii: "/") { end -= 1 }
        return end
    }

    /// The index of the key spelled byte for byte by `segment` in `keys`, or nil.
    @inline(__always)
    static func position(of segment: UnsafeBufferPointer<UInt8>, in keys: [[UInt8]]) -> Int? {
        for index in keys.indices {
            let matches = keys[index].withUnsafeBufferPointer { key -> Bool in
                guard key.count == segment.count else { return false }
                guard let keyBytes = key.baseAddress, let segmentBytes = segment.baseAddress else { return true }
                return memcmp(keyBytes, segmentBytes, key.count) == 0
            }
            if matches { return index }
        }
        return nil
    }

    /// The segment starting at `start` and where the next one starts (nil after the last).
    @inline(__always)
    private static func segment(_ path: UnsafeBufferPointer<UInt8>, from start: Int) -> (Range<Int>, next: Int?) {
        var end = start
        while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
        return (start..<end, end < path.count ? end + 1 : nil)
    }

    /// Calls `body` with the decoded segment; nil if it does not decode. Segments without `%` are passed as is.
    @inline(__always)
    private static func withDecoded<T>(
        _ path: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> T
    ) -> T? {
        let raw = UnsafeBufferPointer(rebasing: path[range])
        guard raw.contains(UInt8(ascii: "%")) else { return body(raw) }
        guard var decoded = PercentEncoding.decodePath(Substring(String(decoding: raw, as: UTF8.self))) else {
            return nil
        }
        return decoded.withUTF8 { body($0) }
    }

    /// Depth-first search for the entry answering `method`; `values` collects parameter values on the way.
    private static func find(
        _ node: Node, _ path: UnsafeBufferPointer<UInt8>, from start: Int?, _ values: inout [String], method: HTTPMethod
    ) -> Entry? {
        guard let start else { return node.entry(for: method) }
        let (range, next) = segment(path, from: start)
        let candidates = withDecoded(path, range) { segment in
            (
                node.literal(segment),
                node.parameter == nil || segment.isEmpty ? nil : String(decoding: segment, as: UTF8.self)
            )
        }
        guard let (literalChild, value) = candidates else { return nil }
        if let literalChild, let found = find(literalChild, path, from: next, &values, method: method) { return found }
        if let parameter = node.parameter, let value {
            values.append(value)
            if let found = find(parameter, path, from: next, &values, method: method) { return found }
            values.removeLast()
        }
        return nil
    }

    /// Depth-first search for any node with routes (to tell 405 from 404).
    private static func findNode(_ node: Node, _ path: UnsafeBufferPointer<UInt8>, from start: Int?) -> Node? {
        guard let start else { return node.entries.isEmpty ? nil : node }
        let (range, next) = segment(path, from: start)
        guard let literalChild = withDecoded(path, range, { node.literal($0) }) else { return nil }
        if let literalChild, let found = findNode(literalChild, path, from: next) { return found }
        if let parameter = node.parameter, !range.isEmpty, let found = findNode(parameter, path, from: next) {
            return found
        }
        return nil
    }
}
