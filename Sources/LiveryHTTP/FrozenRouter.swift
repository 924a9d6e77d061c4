/// The immutable, `Sendable` form of a `Router`: a tree of path segments answering `HTTPResponder.route`.
///
/// Lookup walks the path once per candidate branch: literal children first, then the parameter child, with
/// backtracking, so `/a/b` registered for GET and `/a/:x` for POST both work for their methods. Cost is linear
/// in the number of segments for typical route sets and allocates only for decoded segments longer than 15
/// bytes and for parameter values.
public final class FrozenRouter: HTTPResponder {
    struct Entry: Sendable {
        let method: HTTPMethod
        let pattern: String
        let parameterNames: [String]
        let bodyLimit: Int?
        let handler: HTTPHandler
    }

    final class Node: Sendable {
        /// Literal children; small sets are scanned comparing raw bytes, large ones use `literalIndex`.
        let literalKeys: [String]
        let literalNodes: [Node]
        let literalIndex: [String: Node]?
        let parameter: Node?
        let entries: [Entry]
        /// The 405 answer for this node, with `Allow` listing its methods (and HEAD when GET is present).
        let methodNotAllowed: HTTPRoute?

        init(literals: [String: Node], parameter: Node?, entries: [Entry]) {
            let sortedKeys = literals.keys.sorted()
            self.literalKeys = sortedKeys
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
                    var response = HTTPResponse.error(
                        .methodNotAllowed, code: "method_not_allowed", message: "This path does not support the method.")
                    response.headers.add(name: "Allow", value: allow)
                    return response
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
        func literal(_ segment: String) -> Node? {
            if let literalIndex { return literalIndex[segment] }
            for (index, key) in literalKeys.enumerated() where key == segment { return literalNodes[index] }
            return nil
        }

        /// The literal child for a raw segment without `%` (equal to its decoded form), compared byte for byte
        /// so the hot path builds no `String`.
        func literal(raw segment: Substring) -> Node? {
            if let literalIndex { return literalIndex[String(segment)] }
            let count = segment.utf8.count
            for (index, key) in literalKeys.enumerated() where key.utf8.count == count {
                if segment.utf8.elementsEqual(key.utf8) { return literalNodes[index] }
            }
            return nil
        }
    }

    /// Mutable tree used while freezing.
    private final class Builder {
        var literals: [String: Builder] = [:]
        var parameter: Builder?
        var entries: [Entry] = []

        func freeze() -> Node {
            Node(literals: literals.mapValues { $0.freeze() }, parameter: parameter?.freeze(), entries: entries)
        }
    }

    private let root: Node
    private let notFound = HTTPRoute(
        pattern: nil,
        handler: .sync { _ in .error(.notFound, code: "not_found", message: "No resource at this path.") })

    init(registrations: [Router.Registration]) {
        let root = Builder()
        for registration in registrations {
            var node = root
            var names: [String] = []
            for segment in registration.pattern.segments {
                switch segment {
                case .literal(let text):
                    let child = node.literals[text] ?? Builder()
                    node.literals[text] = child
                    node = child
                case .parameter(let name):
                    let child = node.parameter ?? Builder()
                    node.parameter = child
                    node = child
                    names.append(name)
                }
            }
            node.entries.append(
                Entry(
                    method: registration.method, pattern: registration.pattern.description, parameterNames: names,
                    bodyLimit: registration.bodyLimit, handler: registration.handler))
        }
        self.root = root.freeze()
    }

    public func route(method: HTTPMethod, rawPath: Substring) -> HTTPRoute {
        guard rawPath.hasPrefix("/") else { return notFound }
        let remaining: Substring? = rawPath == "/" ? nil : rawPath.dropFirst()
        var values: [String] = []
        if let entry = Self.find(root, remaining, &values, method: method) {
            var parameters: [String: String] = [:]
            if !entry.parameterNames.isEmpty {
                parameters.reserveCapacity(entry.parameterNames.count)
                for (name, value) in zip(entry.parameterNames, values) { parameters[name] = value }
            }
            return HTTPRoute(
                pattern: entry.pattern, pathParameters: parameters, bodyLimit: entry.bodyLimit, handler: entry.handler)
        }
        values.removeAll()
        if let node = Self.findNode(root, remaining), let methodNotAllowed = node.methodNotAllowed {
            return methodNotAllowed
        }
        return notFound
    }

    /// Splits the next segment off a path remainder.
    @inline(__always)
    private static func nextSegment(_ remaining: Substring) -> (segment: Substring, rest: Substring?) {
        if let slash = remaining.utf8.firstIndex(of: UInt8(ascii: "/")) {
            return (remaining[..<slash], remaining[remaining.index(after: slash)...])
        }
        return (remaining, nil)
    }

    /// Depth-first search for the entry answering `method`; `values` collects parameter values on the way.
    private static func find(_ node: Node, _ remaining: Substring?, _ values: inout [String], method: HTTPMethod) -> Entry? {
        guard let remaining else { return node.entry(for: method) }
        let (segment, rest) = nextSegment(remaining)
        let literalChild: Node?
        var decoded: String?
        if segment.utf8.contains(UInt8(ascii: "%")) {
            guard let text = PercentEncoding.decodePath(segment) else { return nil }
            decoded = text
            literalChild = node.literal(text)
        } else {
            literalChild = node.literal(raw: segment)
        }
        if let literalChild, let found = find(literalChild, rest, &values, method: method) { return found }
        if let parameter = node.parameter, !segment.isEmpty {
            values.append(decoded ?? String(segment))
            if let found = find(parameter, rest, &values, method: method) { return found }
            values.removeLast()
        }
        return nil
    }

    /// Depth-first search for any node with routes (to tell 405 from 404).
    private static func findNode(_ node: Node, _ remaining: Substring?) -> Node? {
        guard let remaining else { return node.entries.isEmpty ? nil : node }
        let (segment, rest) = nextSegment(remaining)
        let literalChild: Node?
        if segment.utf8.contains(UInt8(ascii: "%")) {
            guard let text = PercentEncoding.decodePath(segment) else { return nil }
            literalChild = node.literal(text)
        } else {
            literalChild = node.literal(raw: segment)
        }
        if let literalChild, let found = findNode(literalChild, rest) { return found }
        if let parameter = node.parameter, !segment.isEmpty, let found = findNode(parameter, rest) { return found }
        return nil
    }
}
