import Testing
import ZipArchive
import ZipReading

@Suite("ZipEntryName")
struct ZipEntryNameTests {
    @Test(arguments: ["config.json", "images/tab_home@2x.png", "a/b/c/d.txt", "春节/灯笼.png", "a..b/c.", ".hidden", "x"])
    func acceptsRelativeSlashSeparatedNames(_ raw: String) throws {
        let name = try ZipEntryName(raw)
        #expect(name.rawValue == raw)
        #expect(name.utf8Bytes == Array(raw.utf8))
    }

    @Test(arguments: [
        ("", ZipEntryName.Violation.empty),
        ("/etc/passwd", .absolute),
        ("../evil.png", .parentSegment),
        ("images/../../evil.png", .parentSegment),
        ("images/..", .parentSegment),
        ("images\\evil.png", .backslash),
        ("C:/Windows/evil.png", .driveLetter),
        ("c:evil", .driveLetter),
        ("./config.json", .currentSegment),
        ("images/./a.png", .currentSegment),
        ("images//a.png", .emptySegment),
        ("images/", .emptySegment),
        ("a\u{0}b", .controlCharacter),
        ("line\nbreak", .controlCharacter),
        ("tab\there", .controlCharacter),
        ("del\u{7F}", .controlCharacter),
        ("c1\u{85}control", .controlCharacter)
    ])
    func rejectsNamesBreakingARule(_ raw: String, _ violation: ZipEntryName.Violation) {
        #expect(throws: ZipError.invalidEntryName(name: raw, violation: violation)) { try ZipEntryName(raw) }
    }

    @Test func rejectsNamesLongerThanTheHeaderField() throws {
        _ = try ZipEntryName(String(repeating: "a", count: 65_535))
        #expect(throws: ZipError.invalidEntryName(name: String(repeating: "a", count: 65_536), violation: .tooLong)) {
            try ZipEntryName(String(repeating: "a", count: 65_536))
        }
    }

    @Test func onlyPathEscapesCountAsZipSlip() {
        let escaping: [ZipEntryName.Violation] = [.absolute, .backslash, .driveLetter, .parentSegment]
        let other: [ZipEntryName.Violation] = [
            .empty, .tooLong, .notUTF8, .currentSegment, .emptySegment, .controlCharacter
        ]
        #expect(escaping.filter { !$0.escapesDestination }.isEmpty)
        #expect(other.filter { $0.escapesDestination }.isEmpty)
    }

    @Test func ordersAndComparesByUTF8Bytes() throws {
        // "Z" (0x5A) sorts before "a" (0x61) bytewise; "é" (0xC3 0xA9) after all ASCII.
        let names = try ["é.png", "a.png", "Z.png", "a/b.png", "a.json"].map { try ZipEntryName($0) }
        #expect(names.sorted().map(\.rawValue) == ["Z.png", "a.json", "a.png", "a/b.png", "é.png"])
        // Canonically equivalent but differently encoded names are different entries to the writer.
        let decomposed = try ZipEntryName("e\u{301}")
        let composed = try ZipEntryName("\u{E9}")
        #expect(decomposed != composed)
    }

    @Test func errorMessagesNeverQuoteTheName() {
        let error = ZipError.invalidEntryName(name: "/secret/path", violation: .absolute)
        #expect(!error.message.contains("/secret/path"))
        #expect(error.entryName == "/secret/path")
        #expect(error.code == "invalid_entry_name")
    }
}
