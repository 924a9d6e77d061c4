import Foundation
import SkinStore
import SkinStoreConformance
import TestSupport
import Testing

/// The file store's report log (`reports.log`): what a crash can leave in it, and what it never holds.
@Suite struct ReportLogTests {
    static func report(_ device: String) -> LedgerReport { ReportLedgerConformance.report(device) }

    @Test func aStoreNobodyReportsToHasNoReportFiles() throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        store.close()
        #expect(!Disk.exists(directory.path + "/reports.log"))
        #expect(!Disk.exists(directory.path + "/reports.key"))
    }

    @Test func aTornTailIsCutOffOnOpenAndNeverCounted() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        _ = try await store.reports.record([Self.report("phone-1"), Self.report("phone-2")])
        store.close()
        let log = directory.path + "/reports.log"
        let whole = try Disk.read(log)
        // A crash mid-append: half of a third line, without its newline.
        try Disk.append(Array(#"{"sign":"sign-a","device":"00","outcome":"applied","sk"#.utf8), to: log)

        let reopened = try directory.open()
        #expect(try Disk.read(log) == whole, "the torn tail is cut off")
        let counts = try await reopened.reports.deviceCounts(skinID: "spring", version: 1, since: .distantPast)
        #expect(counts.reporting == 2)
        #expect(try await reopened.reports.record([Self.report("phone-3")]).count == 1)
        reopened.close()
        let lines = try Disk.read(log).split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 3, "the next report follows the last whole line")
    }

    @Test func expiryRewritesTheLogWithTheKeptLinesAndLaterReportsFollowThem() async throws {
        let directory = try ScratchDirectory.forStore()
        let clock = TestClock()
        let store = try directory.open(clock: clock)
        _ = try await store.reports.record([Self.report("old-1"), Self.report("old-2")])
        clock.advance(seconds: 86_400)
        let cutoff = clock.current
        _ = try await store.reports.record([Self.report("kept")])
        let log = directory.path + "/reports.log"
        let keptLine = try #require(try Disk.read(log).split(separator: UInt8(ascii: "\n")).last)
        #expect(try await store.reports.expire(recordedBefore: cutoff) == 2)
        #expect(try Disk.read(log) == Array(keptLine) + [UInt8(ascii: "\n")], "only the kept line is left")
        // The writer appends to the rewritten file, after its last line.
        #expect(try await store.reports.record([Self.report("after")]).count == 1)
        store.close()
        let lines = try Disk.read(log).split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 2)
        let reopened = try directory.open(clock: clock)
        let counts = try await reopened.reports.deviceCounts(skinID: "spring", version: 1, since: .distantPast)
        #expect(counts.reporting == 2)
        reopened.close()
    }

    @Test func aDamagedLineWithGoodLinesAfterItIsRefusedNamingTheLog() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        _ = try await store.reports.record([Self.report("phone-1")])
        _ = try await store.reports.record([Self.report("phone-2")])
        store.close()
        let log = directory.path + "/reports.log"
        var bytes = try Disk.read(log)
        bytes[2] = UInt8(ascii: "#")
        try Disk.write(bytes, to: log)
        #expect {
            _ = try directory.open()
        } throws: { error in
            guard case StoreError.corruptFile(let path, _) = error else { return false }
            return path == log
        }
    }

    @Test func deviceIdsAreKeptOnlyAsKeyedHashes() async throws {
        let directory = try ScratchDirectory.forStore()
        let store = try directory.open()
        _ = try await store.reports.record([Self.report("device-id-7f3a91")])
        store.close()
        let log = String(decoding: try Disk.read(directory.path + "/reports.log"), as: UTF8.self)
        #expect(!log.contains("device-id-7f3a91"))
        #expect(try Disk.read(directory.path + "/reports.key").count == 32)
        // Another store has another secret: the same device hashes differently there.
        let other = try ScratchDirectory.forStore()
        let second = try other.open()
        _ = try await second.reports.record([Self.report("device-id-7f3a91")])
        second.close()
        let otherLog = String(decoding: try Disk.read(other.path + "/reports.log"), as: UTF8.self)
        #expect(Self.device(in: log) != Self.device(in: otherLog))
    }

    static func device(in log: String) -> Substring? {
        guard let start = log.range(of: #""device":""#)?.upperBound else { return nil }
        return log[start...].prefix { $0 != "\"" }
    }
}
