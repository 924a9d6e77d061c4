import LiveryHTTP
import LiveryJSON
import SkinModel
import Testing

@testable import LiveryServer
@testable import LiverySetup
@testable import SkinServing

/// Issue 13 point 4: every JSON Livery writes escapes strings by one rule: `"` and `\`, U+0000–U+001F (with the
/// short forms `\b \t \n \f \r`), and nothing else (DEL and non-ASCII as UTF-8, so package signs stay stable).
@Suite("One JSON escaping rule for error bodies, API answers, config.json and log lines")
struct OneJSONEscapingRuleTests {
    static let text = "q\"b\\\u{8}\t\n\u{C}\r\u{1}\u{1F}\u{7F}é/"
    static let written = #""q\"b\\\b\t\n\f\r\u0001\u001f"# + "\u{7F}é/\""

    @Test("an HTTP error body writes a message by the rule")
    func errorBody() throws {
        let response = HTTPResponse.error(.badRequest, code: "c", message: Self.text, details: [("f", Self.text)])
        guard case .bytes(let bytes) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"error":{"code":"c","message":"# + Self.written + #","details":{"f":"# + Self.written + "}}}")
    }

    @Test("API error details, API answers and config.json serialize strings by the rule")
    func serializedValues() {
        #expect(JSONValue.string(Self.text).compactText == Self.written)
        let response = APIError(.badRequest, code: "c", message: "m", details: [("field", Self.text)]).response
        guard case .bytes(let bytes) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""field":"# + Self.written))
    }

    @Test("a log line writes a message by the rule")
    func logLine() {
        let line = String(
            decoding: JSONLogHandler.encode(level: .info, label: "l", message: Self.text, metadata: [:], source: "t"),
            as: UTF8.self)
        #expect(line.contains(#""message":"# + Self.written + "}"))
    }

    @Test("poll answers quote their values by the rule")
    func pollAnswerFragments() {
        #expect(AnswerFragments.quote(Self.text) == Self.written)
    }
}
