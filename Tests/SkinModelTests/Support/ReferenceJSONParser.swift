import LiveryJSON
import SkinModel

/// The JSON parser SkinModel shipped before it was rewritten over `UnsafeBufferPointer` with a syntax-only
/// mode (commit 7e40695, `Sources/SkinModel/JSONParser.swift`), kept verbatim apart from using only SkinModel's
/// public API. Slow but simple: it is the oracle that `JSONValue.parse` and `JSONValue.validateSyntax` must agree
/// with on every verdict, value, error kind, position and message. Do not "fix" it without a reason written here.
struct ReferenceJSONParser {
    /// The deepest nesting of arrays and objects accepted.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
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
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(.syntax, at: index, "expected a value but found \(describe(index))")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        let open = index
        try enterNesting(at: open)
        index += 1
        var object = JSONObject()
        var keyOffsets: [String: Int] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(
                    .syntax, at: index,
                    "expected a string key in the object opened at \(position(open)) but found \(describe(index))")
            }
            let keyOffset = index
            let key = try parseString()
            if let first = keyOffsets[key] {
                throw error(.duplicateKey, at: keyOffset, "duplicate key \"\(key)\" (first at \(position(first)))")
            }
            keyOffsets[key] = keyOffset
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error(.syntax, at: index, "expected ':' after the key \"\(key)\" but found \(describe(index))")
            }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
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
            return .object(object)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        let open = index
        try enterNesting(at: open)
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
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
            return .array(elements)
        }
    }

    private mutating func enterNesting(at offset: Int) throws(JSONParseError) {
        depth += 1
        if depth > ReferenceJSONParser.maximumDepth {
            throw error(
                .tooDeep, at: offset,
                "arrays and objects are nested more than \(ReferenceJSONParser.maximumDepth) levels deep")
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let open = index
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ end: Int) throws(JSONParseError) {
            guard runStart < end else { return }
            guard let text = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw error(
                    .invalidUTF8, at: firstInvalidUTF8(from: runStart, to: end),
                    "the string contains bytes that are not valid UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flushRun(index)
                index += 1
                return String(scalars)
            }
            if byte == UInt8(ascii: "\\") {
                try flushRun(index)
                scalars.append(try parseEscape())
                runStart = index
                continue
            }
            if byte < 0x20 {
                throw error(
                    .syntax, at: index,
                    "control character U+\(hex4(UInt32(byte))) inside a string; write it as an escape such as \\n or \\u00\(hex2(byte))"
                )
            }
            index += 1
        }
        throw error(.syntax, at: open, "the string starting here is not closed")
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

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        var end = index
        guard scanNumber(bytes, &end) else {
            throw error(
                .syntax, at: end,
                "malformed number: JSON numbers look like -12, 0.5 or 1e6 (no leading zeros, '+', or bare '.')")
        }
        // A number must not run into letters ("12abc") — that is caught as trailing data by the caller.
        index = end
        guard let number = JSONNumber(text: String(decoding: bytes[start..<end], as: UTF8.self)) else {
            throw error(.syntax, at: start, "the reference number scanner and JSONNumber disagree")
        }
        return number
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = literal.withUTF8Buffer { Array($0) }
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error(
                .syntax, at: index,
                "expected a value but found \(describeWord(index)); JSON literals are true, false and null")
        }
        index += expected.count
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
        let (line, column) = ReferenceJSONParser.lineAndColumn(of: offset, in: bytes)
        return JSONParseError(kind: kind, line: line, column: column, offset: offset, message: message)
    }

    private func position(_ offset: Int) -> String {
        let (line, column) = ReferenceJSONParser.lineAndColumn(of: offset, in: bytes)
        return "line \(line), column \(column)"
    }

    /// 1-based line and column of `offset`; columns count UTF-8 lead bytes, i.e. Unicode scalars.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
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
            ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[end])
        {
            end += 1
        }
        guard end > offset else { return describe(offset) }
        return "'\(String(decoding: bytes[offset..<end], as: UTF8.self))'"
    }

    private func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return String(UnicodeScalar(byte)) }
        return "byte 0x\(hex2(byte))"
    }

    private func firstInvalidUTF8(from start: Int, to end: Int) -> Int {
        var i = start
        while i < end {
            let lead = bytes[i]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return i
            }
            guard i + length <= end,
                String(validating: bytes[i..<i + length], as: UTF8.self) != nil
            else { return i }
            i += length
        }
        return start
    }
}

/// `JSONNumber.scan` as it was, over an array.
private func scanNumber(_ bytes: [UInt8], _ index: inout Int) -> Bool {
    func digit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard digit(index) else { return false }
    if bytes[index] == UInt8(ascii: "0") {
        index += 1
        if digit(index) { return false }
    } else {
        while digit(index) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        index += 1
        guard digit(index) else { return false }
        while digit(index) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        guard digit(index) else { return false }
        while digit(index) { index += 1 }
    }
    return true
}

private func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

private func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
}

private func hex4(_ value: UInt32) -> String {
    hex2(UInt8(truncatingIfNeeded: value >> 8)) + hex2(UInt8(truncatingIfNeeded: value))
}

extension ReferenceJSONParser {
    /// The reference verdict on `bytes`.
    static func parse(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
        var parser = ReferenceJSONParser(bytes)
        do { return .success(try parser.parseDocument()) } catch { return .failure(error) }
    }
}
