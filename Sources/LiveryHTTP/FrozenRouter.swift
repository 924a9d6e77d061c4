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
        let literals: [String: Node]
        let parameter: Node?
        let entries: [Entry]
        /// The 405 answer for this node, with `Allow` listing its methods (and HEAD when GET is present).
        let methodNotAllowed: HTTPRoute?

        init(literals: [String: Node], parameter: Node?, entries: [Entry]) {
            self.literals = literals
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
            if let exact = entries.first(where: { $0.method == method }) { return exact }
            if method == .head { return entries.first { $0.method == .get } }
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
        if let node = Self.find(root, remaining, &values, where: { $0.entry(for: method) != nil }),
            let entry = node.entry(for: method)
        {
            var parameters: [String: String] = [:]
            if !entry.parameterNames.isEmpty {
                parameters.reserveCapacity(entry.parameterNames.count)
                for (name, value) in zip(entry.parameterNames, values) { parameters[name] = value }
            }
            return HTTPRoute(
                pattern: entry.pattern, pathParameters: parameters, bodyLimit: entry.bodyLimit, handler: entry.handler)
        }
        values.removeAll()
        if let node = Self.find(root, remaining, &values, where: { !$0.entries.isEmpty }),
            let methodNotAllowed = node.methodNotAllowed
        {
            return methodNotAllowed
        }
        return notFound
    }

    /// Depth-first search for a node accepted by `accept`; `values` collects parameter values on the way.
    private static func find(
        _ node: Node, _ remaining: Substring?, _ values: inout [String], where accept: (Node) -> Bool
    ) -> Node? {
        guard let remaining else { return accept(node) ? node : nil }
        let segment: Substring
        let next: Substring?
        if let slash = remaining.firstIndex(of: "/") {
            segment = remaining[..<slash]
            next = remaining[remaining.index(after: slash)...]
        } else {
            segment = remaining
            next = nil
        }
        guard let decoded = PercentEncoding.decodePath(segment) else { return nil }
        if let child = node.literals[decoded], let found = find(child, next, &values, where: accept) {
            return found
        }
        if let parameter = node.parameter, !decoded.isEmpty {
            values.append(decoded)
            if let found = find(parameter, next, &values, where: accept) { return found }
            values.removeLast()
        }
        return nil
    }
}
