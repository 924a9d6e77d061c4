import LiveryJSON
import SkinModel
import TestSupport
import Testing

/// `JSONValue.validateSyntax` (no tree) and `JSONValue.parse` (tree) against `ReferenceJSONParser`, the parser
/// they replaced: same verdict, same value, and for bad input the same error kind, line, column, offset and
/// message, on hand-picked cases, exhaustive byte substitutions and a fixed-seed fuzz of mutated documents.
@Suite struct JSONSyntaxValidatorTests {
    /// Records an issue unless both parsers agree with the reference on `bytes`.
    static func expectAgreement(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let reference = ReferenceJSONParser.parse(bytes)
        let tree: Result<JSONValue, JSONParseError>
        do { tree = .success(try JSONValue.parse(bytes)) } catch { tree = .failure(error) }
        let syntax: JSONParseError?
        do {
            try JSONValue.validateSyntax(bytes)
            syntax = nil
        } catch {
            syntax = error
        }
        let expectedError: JSONParseError? = if case .failure(let error) = reference { error } else { nil }
        #expect(tree == reference, "parse disagrees on \(Self.show(bytes))", sourceLocation: sourceLocation)
        #expect(
            syntax == expectedError, "validateSyntax disagrees on \(Self.show(bytes))", sourceLocation: sourceLocation)
    }

    static func show(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).debugDescription + " "
            + bytes.prefix(64).map { hex($0) }.joined(separator: " ")
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    // MARK: Hand-picked cases

    @Test(arguments: jsonSyntaxErrorTable)
    func reportsTheSameErrorsAsTheFullParser(_ input: String, _ line: Int, _ column: Int, _ fragment: String) throws {
        let error = try #require(throws: JSONParseError.self) { try JSONValue.validateSyntax(Array(input.utf8)) }
        #expect(error.line == line && error.column == column && error.message.contains(fragment))
        Self.expectAgreement(Array(input.utf8))
    }

    @Test(arguments: [
        #"{"z": 1, "a": {"y": true, "b": null}, "m": [1, "two", -0.5e-3, false, [], {}]}"#,
        #"  [ "\u00e9\u4e2d\ud83c\udf84", "a\"b\\c\/d\b\f\n\r\t", "新春快乐 🎄" ]  "#,
        #"{"a": {"k": 1}, "b": {"k": 2}, "k": {"a": {"b": {}}}}"#,
        "\"\"", "0", "-0", "1E+2", "true", "false", "null", "{}", "[]"
    ])
    func acceptsWhatTheFullParserAccepts(_ input: String) throws {
        try JSONValue.validateSyntax(Array(input.utf8))
        Self.expectAgreement(Array(input.utf8))
    }

    @Test(arguments: [
        // Duplicates: plain, escaped, canonically equivalent (Swift String equality), after a nested object with the
        // same key, beyond the linear-comparison limit, and mixed plain and non-ASCII keys.
        #"{"color": 1, "color": 2}"#,
        #"{"a": 1, "\u0061": 2}"#,
        #"{"\u0061": 1, "a": 2}"#,
        "{\"\u{E9}\": 1, \"e\u{301}\": 2}",
        "{\"e\u{301}\": 1, \"x\": 2, \"\u{E9}\": 3}",
        #"{"K": 1, "\u212A": 2}"#,
        #"{"\u212A": 1, "K": 2}"#,
        #"{"a": {"a": {"a": 1}}, "b": 2, "a": 3}"#,
        #"{"a": [{"a": 1, "b": 2}, {"b": 1, "a": 2}], "c": {"c": {"a": 1, "a": 2}}}"#,
        #"{"ab": 1, "ba": 2, "a": 3, "b": 4, "abc": 5, "ab": 6}"#,
        #"{"x": 1, "名": 2, "y": 3, "x": 4}"#,
        #"{"x": 1, "y\n": 2, "x": 3}"#,
        #"{"": 1, "": 2}"#,
        // Not duplicates.
        #"{"a": 1, "A": 2, "a ": 3, " a": 4, "\u00e9": 5, "e": 6}"#,
        #"{"ab": 1, "a": 2, "b": 3, "": 4}"#
    ])
    func agreesOnDuplicateKeys(_ input: String) {
        Self.expectAgreement(Array(input.utf8))
    }

    @Test(arguments: [31, 32, 33, 40, 200])
    func agreesOnDuplicateKeysInLargeObjects(_ count: Int) {
        let keys = (0..<count).map { "\"key_\($0)\": \($0)" }
        Self.expectAgreement(Array(("{" + keys.joined(separator: ", ") + "}").utf8))
        for duplicate in [0, count / 2, count - 1] {
            let document = "{" + keys.joined(separator: ", ") + ", \"key_\(duplicate)\": 0, \"after\": 1}"
            Self.expectAgreement(Array(document.utf8))
            // A non-ASCII or escaped key late in the object switches it to String keys.
            Self.expectAgreement(
                Array(("{" + keys.joined(separator: ", ") + ", \"é\": 1, \"key_\(duplicate)\": 0}").utf8))
            Self.expectAgreement(Array(("{\"k\\u0065y_\(duplicate)\": 0, " + keys.joined(separator: ", ") + "}").utf8))
        }
    }

    @Test(
        arguments: [
            // Invalid UTF-8 in strings: overlong forms, surrogates, beyond U+10FFFF, stray continuation bytes,
            // truncated sequences, and what wins when a run also holds a control character, an escape or no end.
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
            [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xFF], [0x80], [0xBF, 0x41], [0xC3], [0xE4, 0xB8], [0xF0, 0x9F, 0x8E],
            [0x41, 0xC3, 0x28, 0x42], [0xC3, 0x0A], [0xC3, 0x5C, 0x6E], [0xC3, 0x5C, 0x78], [0x5C, 0x6E, 0xC3],
            [0xE2, 0x82, 0xAC, 0xC3], [0xC3, 0xA9, 0xF0, 0x9F, 0x8E, 0x84, 0xE4, 0xB8, 0xAD]
        ] as [[UInt8]])
    func agreesOnUTF8InStrings(_ content: [UInt8]) {
        let quote = UInt8(ascii: "\"")
        Self.expectAgreement([quote] + content + [quote])
        Self.expectAgreement([quote] + content)
        Self.expectAgreement(Array(#"{"k": ""#.utf8) + content + Array(#"", "k2": 1}"#.utf8))
        Self.expectAgreement([UInt8(ascii: "{"), quote] + content + Array(#"": 1}"#.utf8))
        Self.expectAgreement(content)
    }

    @Test func agreesOnEveryTwoByteSequenceInAString() {
        // Every lead byte from 0x80 with every following byte, then two continuation bytes, inside a string.
        let quote = UInt8(ascii: "\"")
        for lead in UInt8(0x80)...UInt8(0xFF) {
            for next in UInt8(0)...UInt8(0xFF) {
                Self.expectAgreement([quote, lead, next, 0x80, 0xBF, quote])
            }
        }
    }

    @Test func agreesOnEverySingleByteSubstitution() {
        let document = Array(##"{"a": [1, -2.5e3, "x\n\u00e9", {"b": null, "c": false}], "d": "中🎄", "e": true}"##.utf8)
        for position in document.indices {
            for byte in UInt8(0)...UInt8(0xFF) {
                var mutated = document
                mutated[position] = byte
                Self.expectAgreement(mutated)
            }
        }
    }

    @Test func agreesOnEveryTruncation() {
        let document = Array(
            ##"{"m": {"colors": {"c": "#fff", "n": [1, -2.5e3, true, null]}, "s": "\u4e2d\ud83c\udf84"}}"##.utf8)
        for length in 0...document.count { Self.expectAgreement(Array(document[0..<length])) }
    }

    @Test func agreesOnTheDepthLimit() {
        for depth in [255, 256, 257, 10_000] {
            Self.expectAgreement(
                Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8))
            Self.expectAgreement(
                Array((String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8))
        }
        Self.expectAgreement([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
    }

    // MARK: In the validator

    @Test(
        arguments: [
            Array("{\"v\": \"5.7.4\",\n \"layers\": [1, 2,]}".utf8),
            Array("{\"v\": 1,\n  \"fr\": 30,\n  \"v\": 2}".utf8),
            Array("{\"nm\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8),
            Array((String(repeating: "[", count: 300) + String(repeating: "]", count: 300)).utf8),
            [0xEF, 0xBB, 0xBF] + Array("{}".utf8),
            []
        ] as [[UInt8]])
    func validatorReportsBrokenJSONAssetsAsTheFullParserDid(_ document: [UInt8]) throws {
        guard case .failure(let expected) = ReferenceJSONParser.parse(document) else {
            Issue.record("the reference parser accepted a document meant to be broken")
            return
        }
        let report = validate(
            Fixture.make(section: "resources", value: #""anim.json""#, files: ["anim.json": document]))
        let issue = try #require(report.issues.first { $0.file == "anim.json" })
        let code: ValidationIssue.Code =
            switch expected.kind {
            case .syntax: .jsonSyntax
            case .duplicateKey: .jsonDuplicateKey
            case .invalidUTF8: .jsonEncoding
            case .tooDeep: .jsonTooDeep
            }
        #expect(issue.code == code)
        #expect(issue.severity == .error && issue.pointer.isEmpty)
        #expect(issue.line == expected.line && issue.column == expected.column)
        #expect(
            issue.message
                == "anim.json is not valid JSON: line \(expected.line), column \(expected.column): \(expected.message)."
        )
        #expect(report.skin == nil)
    }

    // MARK: Fuzz

    /// Documents the fuzz starts from: Lottie-like keyframes, escapes, non-ASCII text, numbers of every shape,
    /// nesting, an object past the linear key limit, and whitespace with newlines (for line numbers).
    static let fuzzSeeds: [[UInt8]] = [
        Array(
            ##"{"v":"5.7.4","fr":30,"ip":0,"op":2,"layers":[{"ks":{"p":{"k":[{"t":0,"s":[12,200,3,255],"e":[0.5,0.25,1,0],"i":{"x":[0.833],"y":[0.833]},"o":{"x":[0.167],"y":[0.167]}}]}}}]}"##
                .utf8),
        Array(
            "{\n  \"名前\": \"新春快乐 🎄\",\n  \"esc\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83c\\udf84\",\n  \"n\": [0, -0, 1.5e+3, -2E-2, 10]\n}\n"
                .utf8),
        Array(#"[[[{"a":{"a":{"a":[true,false,null]}}}]],{"b":"\u0062","\u0062":"b"}]"#.utf8),
        Array(("{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
    ]

    /// One random edit: replace, insert or delete a byte, duplicate or drop a range, or truncate.
    static func mutate(_ input: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let alphabet =
            Array(#"{}[]":,\ u0123456789abcdefABCDEF.eE+-truefalsnl/"#.utf8)
            + [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xA9, 0xE4, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
        var bytes = input
        guard !bytes.isEmpty else { return [alphabet.randomElement(using: &random) ?? 0] }
        let position = Int.random(in: 0..<bytes.count, using: &random)
        let byte =
            Bool.random(using: &random)
            ? (alphabet.randomElement(using: &random) ?? 0) : UInt8.random(in: 0...255, using: &random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0: bytes[position] = byte
        case 1: bytes.insert(byte, at: position)
        case 2: bytes.remove(at: position)
        case 3:
            let end = min(bytes.count, position + Int.random(in: 1...12, using: &random))
            bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &random))
        case 4: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...6, using: &random)))
        default: bytes.removeSubrange(position...)
        }
        return bytes
    }

    @Test func agreesOnMutatedDocuments() {
        var random = SplitMix64(seed: 0x1507_7A1E)
        for iteration in 0..<12_000 {
            let seed = Self.fuzzSeeds[iteration % Self.fuzzSeeds.count]
            var bytes = seed
            for _ in 0..<Int.random(in: 1...5, using: &random) { bytes = Self.mutate(bytes, &random) }
            Self.expectAgreement(bytes)
        }
    }
}
