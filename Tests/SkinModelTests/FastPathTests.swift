import Foundation
import TestSupport
import Testing

@testable import SkinModel

/// The byte-level fast paths taken for printable-ASCII text give the same answers as the general code.
@Suite struct FastPathTests {
    static func randomText(_ alphabet: [Character], _ random: inout SplitMix64) -> String {
        String((0..<Int.random(in: 0...14, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a" })
    }

    @Test func imageNameSplitMatchesTheCharacterSplit() throws {
        let fixed = [
            "icons/tab@2x.png", "tab@3x", "tab.png", "@2x.png", "a/@2x.png", "a/b@2x", ".hidden", "a.b/c", "a/.png",
            "tab@2x@1x.png", "tab@3x@2x.PNG", "tab@1x@1x.png", "@1x@2x", "x@4x.png", "a/b.c/d@2x.tar.gz", "", "@",
            "a@2x."
        ]
        for path in fixed {
            let fast = try #require(path.utf8.withContiguousStorageIfAvailable(AssetIndex.splitPrintableASCII) ?? nil)
            #expect(fast == AssetIndex.splitCharacters(path), "\(path)")
        }
        var random = SplitMix64(seed: 0xA55E7)
        let alphabet: [Character] = ["a", "b", "/", ".", "@", "1", "2", "3", "4", "x", "X", "p", "n", "g", " "]
        for _ in 0..<5_000 {
            let path = Self.randomText(alphabet, &random)
            let fast = try #require(path.utf8.withContiguousStorageIfAvailable(AssetIndex.splitPrintableASCII) ?? nil)
            #expect(fast == AssetIndex.splitCharacters(path), "\(path)")
        }
        // Anything else takes the Character path: a combining mark makes "./" or "@2x" not what they seem.
        #expect(AssetIndex.split("a/b.\u{301}png") == AssetIndex.splitCharacters("a/b.\u{301}png"))
        #expect(AssetIndex.split("a/b.\u{301}png").fileExtension == nil)
        #expect(AssetIndex.split("tab@2x\u{301}.png").scale == nil)
        #expect(AssetIndex.split("新春/福@2x.png") == AssetIndex.ImageName(stem: "新春/福", scale: 2, fileExtension: "png"))
    }

    @Test func schemeSeparatorSearchMatchesFoundation() {
        let fixed = [
            "https://a", "file://x", "a://", "://", ":/", ":/:/", "a:://b", "a:/b/c", "", "x:", "//", "é://",
            "e\u{301}:/\u{301}/"
        ]
        for text in fixed { #expect(ConfigParser.containsSchemeSeparator(text) == text.contains("://"), "\(text)") }
        var random = SplitMix64(seed: 0x5C4E)
        let alphabet: [Character] = [":", "/", "a", "h", "s", "p", ".", " "]
        for _ in 0..<5_000 {
            let text = Self.randomText(alphabet, &random)
            #expect(ConfigParser.containsSchemeSeparator(text) == text.contains("://"), "\(text)")
        }
    }

    @Test func bytewiseOrderIsUTF8Order() {
        var random = SplitMix64(seed: 0x0BDE)
        let alphabet: [Character] = ["a", "B", "/", ".", "é", "e\u{301}", "中", "🎄", "\u{7F}", "\u{80}", "z", "@"]
        for _ in 0..<5_000 {
            let lhs = Self.randomText(alphabet, &random)
            let rhs = Self.randomText(alphabet, &random)
            #expect(bytewiseLess(lhs, rhs) == lhs.utf8.lexicographicallyPrecedes(rhs.utf8), "\(lhs) \(rhs)")
        }
        #expect(bytewiseLess("", "a") && !bytewiseLess("a", "a") && bytewiseLess("Z", "a") && bytewiseLess("z", "é"))
    }
}
