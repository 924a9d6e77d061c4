/// The value of the `Livery-Signature` response header: `keyid="…", alg="…", sig="<base64>"`.
///
/// The signature covers the exact bytes of the response body. `format()` always writes the three parameters in
/// that order as quoted strings; `parse` reads them strictly by RFC 9110's rules (see `parse`).
public struct SignatureHeader: Sendable, Equatable {
    /// The header's name.
    public static let name = "Livery-Signature"

    /// The id of the key that signed.
    public var keyID: KeyID
    /// The algorithm as written. Kept as text so that a verifier can say "unknown algorithm" instead of failing
    /// to parse; `algorithm` is its known value.
    public var algorithmName: String
    /// The signature's bytes (DER for `ecdsa-p256-sha256`).
    public var signature: [UInt8]

    /// The algorithm, or `nil` when `algorithmName` names none Livery knows.
    public var algorithm: SignatureAlgorithm? { SignatureAlgorithm(rawValue: algorithmName) }

    public init(keyID: KeyID, algorithm: SignatureAlgorithm, signature: [UInt8]) {
        self.init(keyID: keyID, algorithmName: algorithm.rawValue, signature: signature)
    }

    init(keyID: KeyID, algorithmName: String, signature: [UInt8]) {
        self.keyID = keyID
        self.algorithmName = algorithmName
        self.signature = signature
    }

    /// `keyid="ID", alg="ALG", sig="BASE64"`. The id, the algorithm and base64 need no escaping.
    public func format() -> String {
        "keyid=\"\(keyID.text)\", alg=\"\(algorithmName)\", sig=\"\(Base64.encode(signature))\""
    }

    /// Why a header value was refused; each case says which parameter and why.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The value breaks the list, parameter, token or quoted-string grammar at this byte offset.
        case syntax(offset: Int, expected: String)
        /// A parameter name given twice (names compare ignoring case).
        case duplicate(String)
        /// One of `keyid`, `alg`, `sig` is absent.
        case missing(String)
        /// `keyid` breaks `KeyID.rule`.
        case invalidKeyID(String)
        /// `sig` is not canonical padded base64, or is empty.
        case invalidSignatureEncoding

        public var description: String {
            switch self {
            case .syntax(let offset, let expected): "malformed at byte \(offset): expected \(expected)"
            case .duplicate(let name): "the parameter '\(name)' is given more than once"
            case .missing(let name): "the parameter '\(name)' is missing"
            case .invalidKeyID(let text): "keyid '\(text)' is not \(KeyID.rule)"
            case .invalidSignatureEncoding: "sig is not padded standard base64"
            }
        }
    }

    /// Parses a header value strictly.
    ///
    /// The grammar is a comma-separated list (RFC 9110 §5.6.1; empty elements are skipped) of
    /// `name=value` parameters (§5.6.6; no whitespace around `=`), where the name is a token (§5.6.2, compared
    /// ignoring case) and the value is a token or a quoted-string (§5.6.4: `qdtext` is HTAB, SP, `!`, `#`–`[`,
    /// `]`–`~` or obs-text; `\` quotes the next HTAB, SP, visible or obs-text byte). Unknown parameters are
    /// ignored; a parameter given twice is refused, as is any byte outside the grammar (CR, LF, NUL, …).
    public static func parse(_ value: some StringProtocol) throws(ParseError) -> SignatureHeader {
        let parameters = try Self.parameters(Array(value.utf8))
        guard let keyIDText = parameters["keyid"] else { throw .missing("keyid") }
        guard let algorithmName = parameters["alg"] else { throw .missing("alg") }
        guard let signatureText = parameters["sig"] else { throw .missing("sig") }
        guard let keyID = KeyID(keyIDText) else { throw .invalidKeyID(keyIDText) }
        guard let signature = Base64.decode(signatureText), !signature.isEmpty else { throw .invalidSignatureEncoding }
        return SignatureHeader(keyID: keyID, algorithmName: algorithmName, signature: signature)
    }

    /// Every parameter of the list, names lowercased, values unquoted.
    static func parameters(_ bytes: [UInt8]) throws(ParseError) -> [String: String] {
        var result: [String: String] = [:]
        var index = 0
        func skipWhitespace() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        while true {
            skipWhitespace()
            if index == bytes.count { break }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            let nameStart = index
            while index < bytes.count, HTTPToken.isTokenByte(bytes[index]) { index += 1 }
            guard index > nameStart else { throw .syntax(offset: index, expected: "a parameter name") }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw .syntax(offset: index, expected: "'=' right after '\(name)'")
            }
            index += 1
            let value: [UInt8]
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                value = try quotedString(bytes, &index)
            } else {
                let valueStart = index
                while index < bytes.count, HTTPToken.isTokenByte(bytes[index]) { index += 1 }
                guard index > valueStart else { throw .syntax(offset: index, expected: "a token or a quoted string") }
                value = Array(bytes[valueStart..<index])
            }
            guard result[name] == nil else { throw .duplicate(name) }
            result[name] = String(decoding: value, as: UTF8.self)
            skipWhitespace()
            guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else {
                throw .syntax(offset: index, expected: "',' or the end")
            }
        }
        return result
    }

    /// Reads the quoted-string starting at `index` (its opening quote) and leaves `index` after its closing quote.
    private static func quotedString(_ bytes: [UInt8], _ index: inout Int) throws(ParseError) -> [UInt8] {
        var value: [UInt8] = []
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return value
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count, isQuotable(bytes[index + 1]) else {
                    throw .syntax(offset: index + 1, expected: "a tab, space, visible or obs-text byte after '\\'")
                }
                value.append(bytes[index + 1])
                index += 2
            case 0x09, 0x20, 0x21, 0x23...0x5B, 0x5D...0x7E, 0x80...0xFF:
                value.append(byte)
                index += 1
            default:
                throw .syntax(offset: index, expected: "a quoted-string character (no control bytes)")
            }
        }
        throw .syntax(offset: index, expected: "a closing '\"'")
    }

    private static func isQuotable(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x7E).contains(byte) || byte >= 0x80
    }
}

/// RFC 9110 §5.6.2 `tchar`.
enum HTTPToken {
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
