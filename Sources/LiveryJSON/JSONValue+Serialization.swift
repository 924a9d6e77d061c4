extension JSONValue {
    /// How ``serialized(_:)`` lays out its output.
    public enum SerializationStyle: Sendable {
        /// No whitespace at all: `{"a":[1,2]}`.
        case compact
        /// Two-space indentation, `": "` after keys, one member or element per line, and a final newline.
        case pretty
    }

    /// The value as UTF-8 JSON bytes. Deterministic: the same value always gives the same bytes.
    ///
    /// Objects keep member order, numbers are written as their source text, strings are escaped by
    /// `JSONWriter`'s one rule (only `"`, `\` and U+0000–U+001F; DEL and every other character kept as UTF-8).
    public func serialized(_ style: SerializationStyle = .compact) -> [UInt8] {
        var output: [UInt8] = []
        write(into: &output, style: style, indent: 0)
        if style == .pretty { output.append(0x0A) }
        return output
    }

    /// The compact serialization as a `String` (for messages and logs).
    public var compactText: String { String(decoding: serialized(.compact), as: UTF8.self) }

    /// The same bytes as `serialized(style)`, passed to `consume` in order in pieces of about `chunkSize` bytes
    /// (each valid only during the call), so a large document can be hashed or counted without being held whole.
    public func serialize(
        _ style: SerializationStyle = .compact, chunkSize: Int = 1 << 16, into consume: (UnsafeRawBufferPointer) -> Void
    ) {
        withoutActuallyEscaping(consume) { consume in
            var output: [UInt8] = []
            output.reserveCapacity(chunkSize + 1024)
            let flush: (inout [UInt8]) -> Void = { buffer in
                guard buffer.count >= chunkSize else { return }
                buffer.withUnsafeBytes(consume)
                buffer.removeAll(keepingCapacity: true)
            }
            write(into: &output, style: style, indent: 0, flush: flush)
            if style == .pretty { output.append(0x0A) }
            output.withUnsafeBytes(consume)
        }
    }

    /// The number of bytes of `serialized(style)`, found without holding them.
    public func serializedCount(_ style: SerializationStyle = .compact) -> Int {
        var count = 0
        serialize(style) { count += $0.count }
        return count
    }

    /// Appends the serialization to `output`; `flush`, when given, is called after each member and element and
    /// may take the bytes out.
    private func write(
        into output: inout [UInt8], style: SerializationStyle, indent: Int, flush: ((inout [UInt8]) -> Void)? = nil
    ) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): output.append(contentsOf: number.text.utf8)
        case .string(let text): JSONWriter.appendString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.newline(into: &output, style: style, indent: indent + 1)
                element.write(into: &output, style: style, indent: indent + 1, flush: flush)
                flush?(&output)
            }
            if !elements.isEmpty { JSONValue.newline(into: &output, style: style, indent: indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.newline(into: &output, style: style, indent: indent + 1)
                JSONWriter.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                if style == .pretty { output.append(UInt8(ascii: " ")) }
                member.value.write(into: &output, style: style, indent: indent + 1, flush: flush)
                flush?(&output)
            }
            if !object.isEmpty { JSONValue.newline(into: &output, style: style, indent: indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(into output: inout [UInt8], style: SerializationStyle, indent: Int) {
        guard style == .pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }
}
