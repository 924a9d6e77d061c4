/// The public key file `livery keys create` prints: comment lines with the base64 apps embed, a `Livery-Key-Id:`
/// line and the PEM `-----BEGIN PUBLIC KEY-----` block. `livery verify --public-key`, `livery-phone --public-key`
/// and `openssl pkey -pubin -in` all read it.
///
/// ```
/// # Livery public key "k1" (ecdsa-p256-sha256).
/// # Apps embed the key id and this base64 SubjectPublicKeyInfo (DER):
/// # MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…
/// Livery-Key-Id: k1
/// -----BEGIN PUBLIC KEY-----
/// MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…   (64 characters a line)
/// -----END PUBLIC KEY-----
/// ```
///
/// This type reads and writes the text only: whether `derRepresentation` is really a P-256 key is for the key type
/// that is made from it (OpenSSL's on the server, swift-crypto's in the SDK) to decide.
public struct PublicKeyFile: Sendable, Equatable {
    /// The name of the line that records a key's id (matched ignoring case when read).
    public static let idLabel = "Livery-Key-Id"

    /// The key's id.
    public var keyID: KeyID
    /// The key's SubjectPublicKeyInfo DER encoding (91 bytes for P-256).
    public var derRepresentation: [UInt8]

    public init(keyID: KeyID, derRepresentation: [UInt8]) {
        self.keyID = keyID
        self.derRepresentation = derRepresentation
    }

    /// Base64 of `derRepresentation`: the single line apps embed.
    public var base64: String { Base64.encode(derRepresentation) }

    /// The whole file, exactly as `livery keys create` prints it (ending with a line break).
    public var text: String {
        """
        # Livery public key "\(keyID.text)" (\(SignatureAlgorithm.ecdsaP256SHA256.rawValue)).
        # Apps embed the key id and this base64 SubjectPublicKeyInfo (DER):
        # \(base64)
        \(Self.idLine(keyID))\(Self.pemBlock(derRepresentation))
        """
    }

    /// The `Livery-Key-Id:` line followed by a line break, as written before a PEM block (in public and private key
    /// files alike).
    public static func idLine(_ id: KeyID) -> String { "\(idLabel): \(id.text)\n" }

    /// The PEM `-----BEGIN PUBLIC KEY-----` block of `der`, 64 base64 characters per line, ending with a line break.
    public static func pemBlock(_ der: [UInt8]) -> String {
        let body = Array(Base64.encode(der).utf8)
        var lines = ["-----BEGIN PUBLIC KEY-----"]
        var start = 0
        while start < body.count {
            let end = min(start + 64, body.count)
            lines.append(String(decoding: body[start..<end], as: UTF8.self))
            start = end
        }
        lines.append("-----END PUBLIC KEY-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Why a file is not a public key file; `description` says what was found.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// No `Livery-Key-Id:` line before the first `-----BEGIN ` line.
        case missingKeyID
        /// A `Livery-Key-Id:` line whose value breaks `KeyID.rule`, or a second such line (`text` is its value).
        case invalidKeyID(String)
        /// The file holds a private key: never hand it out; use the public key file.
        case privateKey
        /// No `-----BEGIN PUBLIC KEY-----` … `-----END PUBLIC KEY-----` block.
        case missingPublicKeyBlock
        /// The block's lines are not canonical padded base64, or are empty.
        case invalidBase64

        public var description: String {
            switch self {
            case .missingKeyID: "no '\(PublicKeyFile.idLabel):' line before the -----BEGIN line"
            case .invalidKeyID(let text): "the key id '\(text)' is not \(KeyID.rule), or is given twice"
            case .privateKey:
                "found a private key (never hand it out: use the public key `livery keys create` printed)"
            case .missingPublicKeyBlock: "no -----BEGIN PUBLIC KEY----- ... -----END PUBLIC KEY----- block"
            case .invalidBase64: "the PEM block is not base64"
            }
        }
    }

    /// Reads a public key file as `text` writes it: the id from its one `Livery-Key-Id:` line before the PEM block
    /// and the DER from its first `PUBLIC KEY` block (line breaks LF or CRLF; lines before the id line and between
    /// the id line and the block are skipped, as OpenSSL's PEM reader skips them).
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> PublicKeyFile {
        let id = try keyID(in: bytes)
        var base64: [UInt8] = []
        var inBlock = false
        var sawEnd = false
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let line = trimmed(rawLine)
            if !inBlock {
                if line.elementsEqual("-----BEGIN PUBLIC KEY-----".utf8) {
                    inBlock = true
                } else if line.starts(with: "-----BEGIN ".utf8), contains(line, "PRIVATE KEY-----") {
                    throw .privateKey
                }
                continue
            }
            if line.elementsEqual("-----END PUBLIC KEY-----".utf8) {
                sawEnd = true
                break
            }
            base64.append(contentsOf: line)
        }
        guard sawEnd else { throw .missingPublicKeyBlock }
        guard let der = Base64.decode(String(decoding: base64, as: UTF8.self)), !der.isEmpty else {
            throw .invalidBase64
        }
        return PublicKeyFile(keyID: id, derRepresentation: der)
    }

    /// The id from the one `Livery-Key-Id:` line before the first `-----BEGIN ` line (name matched ignoring case;
    /// spaces, tabs and a carriage return around the value ignored). Private key files carry the same line.
    public static func keyID(in bytes: [UInt8]) throws(ParseError) -> KeyID {
        var found: KeyID?
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let line = String(decoding: rawLine, as: UTF8.self)
            if line.hasPrefix("-----BEGIN ") { break }
            guard let colon = line.firstIndex(of: ":"),
                line[..<colon].lowercased() == idLabel.lowercased()
            else { continue }
            let value = line[line.index(after: colon)...].trimmingSpacesAndTabs(alsoCarriageReturn: true)
            guard found == nil, let id = KeyID(value) else { throw .invalidKeyID(String(value)) }
            found = id
        }
        guard let found else { throw .missingKeyID }
        return found
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var line = line
        while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
        while let first = line.first, first == 0x20 || first == 0x09 { line.removeFirst() }
        return line
    }

    private static func contains(_ line: ArraySlice<UInt8>, _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard needle.count <= line.count else { return false }
        var start = line.startIndex
        while start + needle.count <= line.endIndex {
            if line[start..<start + needle.count].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (and carriage returns when asked).
    package func trimmingSpacesAndTabs(alsoCarriageReturn: Bool = false) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || (alsoCarriageReturn && $0 == "\r") }
        let text = Substring(self)
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return text[first...last]
    }
}
