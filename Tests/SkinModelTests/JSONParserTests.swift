import LiveryJSON
import SkinModel
import TestSupport
import Testing

/// Malformed documents with the position and a fragment of the message the parser reports:
/// (input, line, column, fragment of the message). Shared with `JSONSyntaxValidatorTests`.
let jsonSyntaxErrorTable: [(String, Int, Int, String)] = [
    ("", 1, 1, "empty"),
    ("{", 1, 2, "expected a string key"),
    ("{\"a\": 1,}", 1, 9, "trailing comma"),
    ("[1, 2,]", 1, 7, "trailing comma"),
    ("{\"a\" 1}", 1, 6, "expected ':'"),
    ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}'"),
    ("[1 2]", 1, 4, "expected ',' or ']'"),
    ("{'a': 1}", 1, 2, "expected a string key"),
    ("// comment\n{}", 1, 1, "expected a value"),
    ("{\"a\": tru}", 1, 7, "true, false and null"),
    ("{\"a\": 01}", 1, 8, "no leading zeros"),
    ("[1.]", 1, 4, "malformed number"),
    ("[-]", 1, 3, "malformed number"),
    ("[+1]", 1, 2, "expected a value"),
    ("[.5]", 1, 2, "expected a value"),
    ("[NaN]", 1, 2, "expected a value"),
    ("{} {}", 1, 4, "after the end"),
    ("\"abc", 1, 1, "not closed"),
    ("\"a\tb\"", 1, 3, "control character"),
    (#""\x""#, 1, 2, "not a JSON escape"),
    (#""\u12""#, 1, 2, "four hex digits"),
    (#""\udc00""#, 1, 2, "lone low surrogate"),
    (#""\ud800x""#, 1, 2, "without the low surrogate"),
    ("{\"名前\": ?}", 1, 8, "expected a value"),
    ("[\n\n   ]]", 3, 5, "after the end")
]

@Suite struct JSONParserTests {
    @Test func keepsObjectMemberOrder() throws {
        let value = try JSONValue.parse(#"{"z": 1, "a": {"y": true, "b": null}, "m": [1, "two"]}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["z", "a", "m"])
        #expect(object["a"]?.objectValue?.keys == ["y", "b"])
        #expect(object["m"] == .array([1, "two"]))
    }

    @Test(arguments: [
        (#""a\"b\\c\/d\b\f\n\r\t""#, "a\"b\\c/d\u{08}\u{0C}\n\r\t"),
        (#""\u00e9\u4e2d""#, "é中"),
        (#""\ud83c\udf84""#, "🎄"),
        ("\"新春快乐\"", "新春快乐")
    ])
    func decodesStringEscapes(_ json: String, _ expected: String) throws {
        #expect(try JSONValue.parse(json) == .string(expected))
    }

    @Test(arguments: ["0", "-0", "12", "-3.25", "1e6", "1E-7", "6.02e+23", "0.5"])
    func keepsNumberTextExactly(_ text: String) throws {
        let value = try JSONValue.parse(text)
        #expect(value == .number(try #require(JSONNumber(text: text))))
        #expect(value.serialized() == Array(text.utf8))
    }

    @Test(arguments: jsonSyntaxErrorTable)
    func reportsLineAndColumnOfSyntaxErrors(_ input: String, _ line: Int, _ column: Int, _ fragment: String) {
        #expect {
            _ = try JSONValue.parse(input)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.line == line && error.column == column && error.message.contains(fragment)
        }
    }

    @Test func rejectsDuplicateKeysNamingBothPlaces() throws {
        let input = "{\n  \"color\": \"#fff\",\n  \"color\": \"#000\"\n}"
        let error = try #require(throws: JSONParseError.self) { try JSONValue.parse(input) }
        #expect(error.kind == .duplicateKey)
        #expect(error.line == 3 && error.column == 3)
        #expect(error.message == #"duplicate key "color" (first at line 2, column 3)"#)
    }

    @Test func rejectsDuplicateKeysSpelledWithEscapes() throws {
        let error = try #require(throws: JSONParseError.self) { try JSONValue.parse(#"{"a": 1, "\u0061": 2}"#) }
        #expect(error.kind == .duplicateKey)
    }

    @Test func allowsTheSameKeyInDifferentObjects() throws {
        _ = try JSONValue.parse(#"{"a": {"k": 1}, "b": {"k": 2}}"#)
    }

    @Test func rejectsAByteOrderMark() throws {
        let error = try #require(throws: JSONParseError.self) {
            try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        }
        #expect(error.message.contains("byte order mark"))
    }

    @Test func rejectsInvalidUTF8InStrings() throws {
        let error = try #require(throws: JSONParseError.self) {
            try JSONValue.parse(Array("{\"a\": \"ok".utf8) + [0xC3, 0x28] + Array("\"}".utf8))
        }
        #expect(error.kind == .invalidUTF8)
        #expect(error.offset == 9)
    }

    @Test func limitsNestingDepthWithoutCrashing() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = try #require(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        #expect(error.kind == .tooDeep)
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        _ = try JSONValue.parse(fine)
    }

    @Test func everyTruncationOfADocumentFailsCleanly() throws {
        let document = Array(
            ##"{"m": {"colors": {"c": "#fff", "n": [1, -2.5e3, true, null]}, "s": "\u4e2d\ud83c\udf84"}}"##.utf8)
        _ = try JSONValue.parse(document)
        for length in 0..<document.count {
            #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(document[0..<length])) }
        }
    }

    @Test func randomBytesNeverCrashTheParser() {
        // Fixed-seed fuzzing: mutate a valid document byte by byte; the parser must return or throw.
        var generator = SplitMix64(seed: 0x5EED)
        let base = Array(#"{"a": [1, 2.5, "x\n", {"b": null, "c": false}], "d": "\u00e9"}"#.utf8)
        let alphabet = Array(#"{}[]":,\ \#nu0123456789.eE+-truefalsnl"#.utf8) + [0x00, 0xC3, 0xFF, 0xE4]
        for _ in 0..<3000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[position] = alphabet.randomElement(using: &generator) ?? 0
            }
            _ = try? JSONValue.parse(bytes)
        }
    }
}

@Suite struct JSONSerializationTests {
    @Test func compactOutputIsMinimalAndOrdered() throws {
        let value = try JSONValue.parse("{ \"b\" : [ 1 , 2 ] ,\n \"a\" : { } , \"c\": [] }")
        #expect(value.compactText == #"{"b":[1,2],"a":{},"c":[]}"#)
    }

    @Test func prettyOutputUsesTwoSpacesAndAFinalNewline() throws {
        let value = try JSONValue.parse(##"{"m": {"colors": {"c": "#fff"}, "list": [1, true]}, "e": {}}"##)
        let expected = """
            {
              "m": {
                "colors": {
                  "c": "#fff"
                },
                "list": [
                  1,
                  true
                ]
              },
              "e": {}
            }

            """
        #expect(String(decoding: value.serialized(.pretty), as: UTF8.self) == expected)
    }

    @Test func escapesOnlyWhatJSONRequires() {
        let value = JSONValue.string("q\"b\\s/n\nt\tc\u{01}é中🎄")
        #expect(value.compactText == #""q\"b\\s/n\nt\tc\u0001é中🎄""#)
    }

    @Test(arguments: [
        #"{"a":[1,2,{"b":null}],"c":"\u00e9"}"#,
        #"[]"#,
        #"{"新":{"春":[-0.5e-3,true,false]}}"#
    ])
    func serializationRoundTrips(_ json: String) throws {
        let value = try JSONValue.parse(json)
        #expect(try JSONValue.parse(value.serialized(.pretty)) == value)
        #expect(try JSONValue.parse(value.serialized(.compact)) == value)
        #expect(value.serialized(.pretty) == value.serialized(.pretty))
    }

    @Test func objectsEditInPlaceKeepingOrder() {
        var object = JSONObject()
        object["b"] = 1
        object["a"] = 2
        object["b"] = 3
        #expect(object.keys == ["b", "a"])
        object["b"] = nil
        object["c"] = 4
        #expect(object.keys == ["a", "c"])
        #expect(object["c"] == 4)
    }

    @Test func pointersEscapeSlashAndTilde() {
        #expect(JSONPointer(tokens: ["a/b", "c~d", "0"]).description == "/a~1b/c~0d/0")
        #expect(JSONPointer.root.description == "")
    }
}
