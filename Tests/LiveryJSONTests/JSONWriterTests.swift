import LiveryJSON
import Testing

@Suite("JSONWriter: the one escaping rule")
struct JSONWriterTests {
    @Test("quotes and backslashes are escaped, control characters use the short form where JSON has one")
    func escapesQuotesBackslashesAndControls() {
        #expect(JSONWriter.quoted("a\"b\\c") == #""a\"b\\c""#)
        #expect(JSONWriter.quoted("\u{8}\t\n\u{C}\r") == #""\b\t\n\f\r""#)
        #expect(JSONWriter.quoted("\u{0}\u{1}\u{1B}\u{1F}") == #""\u0000\u0001\u001b\u001f""#)
    }

    @Test("every byte from U+0000 to U+001F is escaped and every other ASCII character is kept as it is")
    func everyASCIICharacter() {
        let shortForms: [UInt8: String] = [0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"]
        for byte in UInt8(0)...0x7F {
            let written = JSONWriter.quoted(String(UnicodeScalar(byte)))
            let expected: String =
                switch byte {
                case UInt8(ascii: "\""): "\\\""
                case UInt8(ascii: "\\"): "\\\\"
                case 0x00..<0x20: shortForms[byte] ?? "\\u00" + String(byte, radix: 16).leftPadded(to: 2)
                default: String(UnicodeScalar(byte))
                }
            #expect(written == "\"" + expected + "\"", "byte \(byte)")
        }
    }

    @Test("DEL, C1 controls, slashes and non-ASCII text are written as their UTF-8 bytes (package signs stay stable)")
    func keepsDELAndNonASCII() {
        let text = "\u{7F}\u{85}/é中🎄"
        #expect(JSONWriter.string(text) == [UInt8(ascii: "\"")] + Array(text.utf8) + [UInt8(ascii: "\"")])
    }

    @Test("objects and arrays keep their order and escape keys")
    func fragments() {
        let object = JSONWriter.object([
            ("b\"", JSONWriter.number(-2)), ("a", JSONWriter.array([JSONWriter.bool(true), JSONWriter.null]))
        ])
        #expect(String(decoding: object, as: UTF8.self) == #"{"b\"":-2,"a":[true,null]}"#)
    }

    @Test("a writer appends values and raw fragments in order")
    func writerAppends() {
        var writer = JSONWriter()
        writer.raw("[".utf8)
        writer.string("x\n")
        writer.raw(",".utf8)
        writer.number(7)
        writer.raw(",".utf8)
        writer.bool(false)
        writer.raw(",".utf8)
        writer.null()
        writer.raw("]".utf8)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"["x\n",7,false,null]"#)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
