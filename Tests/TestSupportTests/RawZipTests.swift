import Foundation
import TestSupport
import Testing

@Suite struct RawZipTests {
    @Test func crc32GivesTheStandardCheckValue() {
        #expect(RawZip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(RawZip.crc32([]) == 0)
    }

    /// A well-formed RawZip with a stored and a deflated entry opens in Python's zipfile with the right bytes.
    @Test func aDefaultArchiveOpensInPythonsZipfile() async throws {
        let text = Array(String(repeating: "holiday skin ", count: 500).utf8)
        let compressed = try RawZip.deflate(text)
        #expect(compressed.count < text.count / 10)
        let archive = RawZip(entries: [
            .stored("a.png", [0x89, 0x50, 0x4E, 0x47]), .deflated("b.json", content: text, compressed: compressed)
        ])
        let scratch = try ScratchDirectory(prefix: "testsupport-rawzip")
        let path = try scratch.write("raw.zip", archive.build())
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print([(i.filename, i.compress_type, len(z.read(i))) for i in z.infolist()])
            """
        let run = try await ExternalProcess.run("python3", ["-c", script, path])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.standardOutput == "[('a.png', 0, 4), ('b.json', 8, \(text.count))]\n")
    }

    @Test func deflateOfNothingIsAValidEmptyStream() async throws {
        let compressed = try RawZip.deflate([])
        let scratch = try ScratchDirectory(prefix: "testsupport-rawzip")
        let path = try scratch.write("empty.deflate", compressed)
        let script = "import sys, zlib; print(len(zlib.decompress(open(sys.argv[1], 'rb').read(), -15)))"
        let run = try await ExternalProcess.run("python3", ["-c", script, path])
        #expect(run.status == 0 && run.standardOutput == "0\n", "\(run.transcript)")
    }
}
