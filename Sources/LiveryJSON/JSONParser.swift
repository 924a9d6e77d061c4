/// A strict RFC 8259 JSON parser that keeps object member order, rejects duplicate keys and reports the line
/// and column of the first problem.
///
/// Strict means: exactly one value with optional surrounding whitespace; no comments, trailing commas, single
/// quotes, byte order mark, unescaped control characters, lone surrogates or invalid UTF-8; nesting at most
/// ``maximumDepth`` levels (so hostile input cannot exhaust the stack). Runs in O(n) time.
///
/// One grammar, two modes. ``Mode/tree`` builds a ``JSONValue``. ``Mode/syntax`` applies exactly the same rules,
/// in the same order, and throws the same ``JSONParseError`` at the same offset, but builds nothing: strings are
/// checked in place (UTF-8 validated byte by byte, escapes decoded only for object keys that contain them), and
/// duplicate keys are found by comparing byte ranges of the document. Its only allocations are a reused stack of
/// key ranges and, for objects with more than ``linearKeyLimit`` keys or with keys that are escaped or not ASCII,
/// a dictionary of `String` keys: the same `String` equality the tree mode uses, so both modes agree on which
/// keys are duplicates (Swift compares strings by canonical equivalence, so `"K"` and `"\u212A"` are one key).
///
/// The parser reads an `UnsafeBufferPointer` and must not outlive it; ``JSONValue/parse(_:)-([UInt8])`` and
/// ``JSONValue/validateSyntax(_:)`` create it inside `withUnsafeBufferPointer`.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 256

    /// Objects with up to this many keys, all plain ASCII without escapes, are checked for duplicates by
    /// comparing bytes pairwise; larger objects switch to a `String` dictionary so hostile input stays O(n).
    static let linearKeyLimit = 32

    /// What the parser produces.
    enum Mode {
        /// Builds the value.
        case tree
        /// Checks syntax only; every value returned is `.null`.
        case syntax
    }

    /// Where a scanned string's content lies (between its quotes) and what it holds.
    private struct ScannedString {
        var start: Int
        var end: Int
        /// The string has escapes; its decoded UTF-8 is in `scratch` when it was scanned with decoding on.
        var hasEscapes: Bool
        /// Every byte between the quotes is ASCII.
        var isASCII: Bool

        /// Raw bytes equal decoded bytes, and byte equality equals `String` equality.
        var isPlainASCII: Bool { isASCII && !hasEscapes }
    }

    /// A plain-ASCII key of an open object, by its content range in the document.
    private struct KeyRange {
        var start: Int
        var end: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let buildsValues: Bool
    private var index = 0
    private var depth = 0
    /// Keys of the open objects that are still compared bytewise, innermost object last.
    private var keyRanges: [KeyRange] = []
    /// The members of the objects being parsed, innermost last: each object's are copied out into an array of
    /// exactly their count when it closes, so the tree holds no spare capacity (a config is thousands of small
    /// objects, and arrays grown by appending keep up to half again as much).
    private var memberStack: [JSONObject.Member] = []
    /// The same for arrays' elements.
    private var elementStack: [JSONValue] = []
    /// The decoded UTF-8 of the last string scanned with decoding on, when it had escapes.
    private var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, mode: Mode) {
        self.bytes = bytes
        self.buildsValues = mode == .tree
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw error(.syntax, at: 0, "the file starts with a UTF-8 byte order mark; save it as UTF-8 without BOM")
        }
        skipWhitespace()
        guard index < bytes.count else {
            throw error(.syntax, at: index, "expected a JSON value but the input is empty")
        }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw error(.syntax, at: index, "unexpected \(describe(index)) after the end of the JSON value")
        }
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error(.syntax, at: index, "expected a value but the input ended") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let scanned = try scanString(decoding: buildsValues)
            return buildsValues ? .string(text(of: scanned)) : .null
        case UInt8(ascii: "t"): try expectLiteral("true"); return buildsValues ? .bool(true) : .null
        case UInt8(ascii: "f"): try expectLiteral("false"); return buildsValues ? .bool(false) : .null
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(.syntax, at: index, "expected a value but found \(describe(index))")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        let open = index
        try enterNesting(at: open)
        index += 1
        // This object's members: `memberStack` from `firstMember` on.
        let firstMember = memberStack.count
        // This object's keys: byte ranges from `firstKey` on while they are few and plain, else `keyOffsets`.
        let firstKey = keyRanges.count
        var keyOffsets: [String: Int]?
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return buildsValues ? .object(JSONObject()) : .null
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(
                    .syntax, at: index,
                    "expected a string key in the object opened at \(position(open)) but found \(describe(index))")
            }
            let keyOffset = index
            // Keys are always decoded when escaped: duplicates are judged on decoded text.
            let key = try scanString(decoding: true)
            let name: String? = buildsValues ? text(of: key) : nil
            if keyOffsets == nil, key.isPlainASCII, keyRanges.count - firstKey < JSONParser.linearKeyLimit {
                if let first = offsetOfPlainKey(equalTo: key, from: firstKey) {
                    throw duplicateKey(name ?? text(of: key), at: keyOffset, first: first)
                }
                keyRanges.append(KeyRange(start: key.start, end: key.end))
            } else {
                let keyText = name ?? text(of: key)
                if keyOffsets == nil { keyOffsets = stringKeys(from: firstKey) }
                if let first = keyOffsets?[keyText] { throw duplicateKey(keyText, at: keyOffset, first: first) }
                keyOffsets?[keyText] = keyOffset
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error(
                    .syntax, at: index,
                    "expected ':' after the key \"\(name ?? text(of: key))\" but found \(describe(index))")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if let name { memberStack.append(JSONObject.Member(key: name, value: value)) }
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.syntax, at: index, "the object opened at \(position(open)) is not closed")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    throw error(.syntax, at: index, "trailing comma before '}'; remove the last ','")
                }
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else {
                throw error(
                    .syntax, at: index,
                    "expected ',' or '}' in the object opened at \(position(open)) but found \(describe(index))")
            }
            index += 1
            depth -= 1
            keyRanges.removeSubrange(firstKey...)
            guard buildsValues else { return .null }
            // Duplicates were refused above.
            let object = JSONObject(uniqueMembers: Self.exactCopy(memberStack[firstMember...]))
            memberStack.removeSubrange(firstMember...)
            return .object(object)
        }
    }

    /// The offset of the opening quote of an earlier key of this object with the same bytes as `key`.
    private func offsetOfPlainKey(equalTo key: ScannedString, from firstKey: Int) -> Int? {
        let length = key.end - key.start
        for candidate in keyRanges[firstKey...] where candidate.end - candidate.start == length {
            var offset = 0
            while offset < length, bytes[candidate.start + offset] == bytes[key.start + offset] { offset += 1 }
            if offset == length { return candidate.start - 1 }
        }
        return nil
    }

    /// Moves this object's byte-range keys into a `String` dictionary (key → offset of its opening quote).
    private mutating func stringKeys(from firstKey: Int) -> [String: Int] {
        var offsets = [String: Int](minimumCapacity: 2 * (keyRanges.count - firstKey) + 2)
        for range in keyRanges[firstKey...] {
            offsets[String(decoding: UnsafeBufferPointer(rebasing: bytes[range.start..<range.end]), as: UTF8.self)] =
                range.start - 1
        }
        keyRanges.removeSubrange(firstKey...)
        return offsets
    }

    private func duplicateKey(_ key: String, at offset: Int, first: Int) -> JSONParseError {
        error(.duplicateKey, at: offset, "duplicate key \"\(key)\" (first at \(position(first)))")
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        let open = index
        try enterNesting(at: open)
        index += 1
        let firstElement = elementStack.count
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return buildsValues ? .array([]) : .null
        }
        while true {
            skipWhitespace()
            let element = try parseValue()
            if buildsValues { elementStack.append(element) }
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.syntax, at: index, "the array opened at \(position(open)) is not closed")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    throw error(.syntax, at: index, "trailing comma before ']'; remove the last ','")
                }
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else {
                throw error(
                    .syntax, at: index,
                    "expected ',' or ']' in the array opened at \(position(open)) but found \(describe(index))")
            }
            index += 1
            depth -= 1
            guard buildsValues else { return .null }
            let elements = Self.exactCopy(elementStack[firstElement...])
            elementStack.removeSubrange(firstElement...)
            return .array(elements)
        }
    }

    /// `slice` in an array of its own with room for exactly its elements. (`Array(slice)` takes over the stack's
    /// whole buffer, spare capacity included, when the slice is all of it: the outermost object or array.)
    private static func exactCopy<Element>(_ slice: ArraySlice<Element>) -> [Element] {
        var copy: [Element] = []
        copy.reserveCapacity(slice.count)
        copy.append(contentsOf: slice)
        return copy
    }

    private mutating func enterNesting(at offset: Int) throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw error(
                .tooDeep, at: offset, "arrays and objects are nested more than \(JSONParser.maximumDepth) levels deep")
        }
    }

    // MARK: Strings

    /// Scans the string whose opening quote is at `index` and leaves `index` after its closing quote.
    ///
    /// Errors, in the order they take effect: a control character or the end of the input while the string is
    /// open; then, at the next escape or the closing quote, the first invalid UTF-8 sequence since the previous
    /// escape (or the opening quote); then a malformed escape. With `decoding`, a string with escapes leaves its
    /// decoded UTF-8 in `scratch`; a string without escapes leaves `scratch` untouched.
    private mutating func scanString(decoding: Bool) throws(JSONParseError) -> ScannedString {
        let open = index
        index += 1
        let start = index
        var runStart = index
        var firstInvalidUTF8 = -1
        var hasEscapes = false
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                if byte < 0x20 {
                    throw error(
                        .syntax, at: index,
                        "control character U+\(hex4(UInt32(byte))) inside a string; write it as an escape such as \\n or \\u00\(hex2(byte))"
                    )
                }
                if firstInvalidUTF8 >= 0 {
                    throw error(
                        .invalidUTF8, at: firstInvalidUTF8, "the string contains bytes that are not valid UTF-8")
                }
                if byte == UInt8(ascii: "\"") {
                    if decoding, hasEscapes {
                        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    }
                    let end = index
                    index += 1
                    return ScannedString(start: start, end: end, hasEscapes: hasEscapes, isASCII: isASCII)
                }
                if decoding {
                    if !hasEscapes { scratch.removeAll(keepingCapacity: true) }
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                hasEscapes = true
                let scalar = try parseEscape()
                if decoding { appendUTF8(scalar) }
                runStart = index
                continue
            }
            isASCII = false
            if firstInvalidUTF8 < 0 {
                let length = validUTF8SequenceLength(at: index)
                if length > 0 {
                    index += length
                    continue
                }
                firstInvalidUTF8 = index
            }
            index += 1
        }
        throw error(.syntax, at: open, "the string starting here is not closed")
    }

    /// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, at most
    /// U+10FFFF) starting at `offset` with a byte of 0x80 or more; 0 when it is not one.
    private func validUTF8SequenceLength(at offset: Int) -> Int {
        let lead = bytes[offset]
        func continuation(_ position: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            position < bytes.count && bytes[position] >= low && bytes[position] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return continuation(offset + 1) ? 2 : 0
        case 0xE0...0xEF:
            let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
            let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
            return continuation(offset + 1, low, high) && continuation(offset + 2) ? 3 : 0
        case 0xF0...0xF4:
            let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
            let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
            return continuation(offset + 1, low, high) && continuation(offset + 2) && continuation(offset + 3) ? 4 : 0
        default:
            return 0
        }
    }

    /// The text of a string just scanned (with decoding on, if it had escapes).
    private func text(of scanned: ScannedString) -> String {
        if scanned.hasEscapes { return String(decoding: scratch, as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[scanned.start..<scanned.end]), as: UTF8.self)
    }

    private mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(truncatingIfNeeded: value))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(truncatingIfNeeded: value >> 6))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(truncatingIfNeeded: value >> 12))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(truncatingIfNeeded: value >> 18))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 12) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        }
    }

    private mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
        let start = index
        index += 1
        guard index < bytes.count else {
            throw error(.syntax, at: start, "the escape sequence is cut off by the end of the input")
        }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4(escapeStart: start)
            if (0xDC00...0xDFFF).contains(high) {
                throw error(
                    .syntax, at: start,
                    "\\u\(hex4(high)) is a lone low surrogate; pair it after a high surrogate \\uD800-\\uDBFF")
            }
            if (0xD800...0xDBFF).contains(high) {
                let lowStart = index
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw error(
                        .syntax, at: start,
                        "\\u\(hex4(high)) is a high surrogate without the low surrogate \\uDC00-\\uDFFF that must follow it"
                    )
                }
                index += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(
                        .syntax, at: lowStart,
                        "\\u\(hex4(low)) cannot follow the high surrogate \\u\(hex4(high)); expected \\uDC00-\\uDFFF")
                }
                let combined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else {
                    throw error(.syntax, at: start, "invalid surrogate pair")
                }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw error(.syntax, at: start, "invalid \\u escape") }
            return scalar
        default:
            throw error(
                .syntax, at: start,
                "\\\(describeByte(letter)) is not a JSON escape; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX")
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexDigitValue(bytes[index]) else {
                throw error(.syntax, at: escapeStart, "\\u must be followed by four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Numbers and literals

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var end = index
        guard JSONNumber.scan(bytes, &end) else {
            throw error(
                .syntax, at: end,
                "malformed number: JSON numbers look like -12, 0.5 or 1e6 (no leading zeros, '+', or bare '.')")
        }
        // A number must not run into letters ("12abc") — that is caught as trailing data by the caller.
        index = end
        guard buildsValues else { return .null }
        return .number(
            JSONNumber(
                validatedText: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)))
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let expected = literal.utf8Start
        var matched = 0
        while matched < count, index + matched < bytes.count, bytes[index + matched] == expected[matched] {
            matched += 1
        }
        guard matched == count else {
            throw error(
                .syntax, at: index,
                "expected a value but found \(describeWord(index)); JSON literals are true, false and null")
        }
        index += count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    // MARK: Messages

    private func error(_ kind: JSONParseError.Kind, at offset: Int, _ message: String) -> JSONParseError {
        let (line, column) = JSONParser.lineAndColumn(of: offset, in: bytes)
        return JSONParseError(kind: kind, line: line, column: column, offset: offset, message: message)
    }

    private func position(_ offset: Int) -> String {
        let (line, column) = JSONParser.lineAndColumn(of: offset, in: bytes)
        return "line \(line), column \(column)"
    }

    /// 1-based line and column of `offset`; columns count UTF-8 lead bytes, i.e. Unicode scalars.
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let byte = bytes[i]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    private func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the input" }
        return "'\(describeByte(bytes[offset]))'"
    }

    private func describeWord(_ offset: Int) -> String {
        var end = offset
        while end < bytes.count, end - offset < 16, bytes[end] >= 0x21, bytes[end] < 0x7F,
            bytes[end] != UInt8(ascii: ","), bytes[end] != UInt8(ascii: "}"), bytes[end] != UInt8(ascii: "]")
        {
            end += 1
        }
        guard end > offset else { return describe(offset) }
        return "'\(String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self))'"
    }

    private func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return String(UnicodeScalar(byte)) }
        return "byte 0x\(hex2(byte))"
    }
}

/// The value of one hexadecimal digit (either case), or nil.
package func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// Two uppercase hexadecimal digits of `byte`.
package func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
}

func hex4(_ value: UInt32) -> String {
    hex2(UInt8(truncatingIfNeeded: value >> 8)) + hex2(UInt8(truncatingIfNeeded: value))
}

extension JSONValue {
    /// Parses one JSON document strictly (see ``JSONParser``), keeping object member order.
    ///
    /// - Throws: ``JSONParseError`` with the 1-based line and column of the first problem.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(buffer, mode: .tree)
            return try parser.parseDocument()
        }
    }

    /// Parses the UTF-8 bytes of `text`; see ``parse(_:)-([UInt8])``.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Checks that `bytes` are one strict JSON document without building it.
    ///
    /// Accepts exactly what ``parse(_:)-([UInt8])`` accepts and, for anything else, throws the same
    /// ``JSONParseError`` (kind, line, column, offset and message). Runs in O(n) time and, unlike `parse`,
    /// allocates nothing per value: use it when only validity matters, such as for Lottie files in a skin.
    ///
    /// - Throws: ``JSONParseError`` with the 1-based line and column of the first problem.
    public static func validateSyntax(_ bytes: [UInt8]) throws(JSONParseError) {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var parser = JSONParser(buffer, mode: .syntax)
            _ = try parser.parseDocument()
        }
    }
}
