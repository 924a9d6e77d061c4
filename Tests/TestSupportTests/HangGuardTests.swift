import Foundation
import TestSupport
import Testing

/// `.hangGuard` is the suite's one time limit: a limit counts from a test's start, and a test can wait behind the
/// rest of a parallel run for as long as that run lasts, so a shorter limit fails tests that do not hang.
@Suite struct HangGuardTests {
    @Test func theGuardIsFifteenMinutes() {
        let trait: TimeLimitTrait = .hangGuard
        #expect(trait.timeLimit == .seconds(15 * 60))
    }

    @Test func noTestSetsATimeLimitOfItsOwn() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
        var swiftFiles = 0
        var offenders: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            swiftFiles += 1
            // The guard's definition, and this test's own needle.
            guard !["HangGuard.swift", "HangGuardTests.swift"].contains(file.lastPathComponent) else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(".timeLimit(") {
                offenders.append("\(file.path.dropFirst(tests.path.count)):\(number + 1)")
            }
        }
        #expect(swiftFiles > 100, "the walk found the test sources under \(tests.path)")
        #expect(offenders.isEmpty, "use .hangGuard instead: \(offenders)")
    }
}
