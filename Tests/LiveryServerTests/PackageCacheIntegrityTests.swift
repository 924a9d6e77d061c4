import Foundation
import SkinDirectory
import SkinModel
import SkinPackage
import TestSupport
import Testing

@testable import LiveryHTTP
@testable import LiveryServer
@testable import SkinServing

/// The package cache trusts a file on disk only if it matches what was built, and never pairs a sign with other
/// bytes than those it was first built with.
@Suite struct PackageCacheIntegrityTests {
    static func packager() throws -> SkinPackager {
        let source = DirectorySkinSource(path: LiveryHarness.repository.path + "/skins/christmas-2026")
        let skin = try #require(SkinValidator().validate(source).skin)
        return try SkinPackager(skin: skin, source: source)
    }

    static func record(_ cache: PackageCache, _ packager: SkinPackager) async throws -> PackageRecord {
        let variant = PackageVariant.standard
        return try await cache.record(
            sign: packager.sign(for: variant), variant: variant, packager: packager)
    }

    @Test func aBuildIsRecordedAndAnAlteredFileIsRebuiltToTheRecordedBytes() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-cache-integrity")
        let packager = try Self.packager()
        let built = try await Self.record(
            try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet), packager)
        let record = try String(contentsOfFile: built.path + ".sha256", encoding: .utf8)
        #expect(record == "\(built.sign) \(built.sha256) \(built.size)\n")

        var bytes = try scratch.read(URL(fileURLWithPath: built.path).lastPathComponent)
        bytes[bytes.count - 5] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: built.path))
        let restarted = try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet)
        let again = try await Self.record(restarted, packager)
        #expect(again.sha256 == built.sha256 && again.size == built.size)
        #expect(await restarted.buildCount == 1, "rebuilt, not reused")
    }

    @Test func aRebuildThatGivesOtherBytesThanRecordedIsRefused() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-cache-integrity")
        let packager = try Self.packager()
        let built = try await Self.record(
            try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet), packager)
        // As if the sources had changed since: the record says other bytes, and the file is gone.
        let other = String(repeating: "ab", count: 32)
        try Data("\(built.sign) \(other) \(built.size)\n".utf8).write(to: URL(fileURLWithPath: built.path + ".sha256"))
        try FileManager.default.removeItem(atPath: built.path)

        let restarted = try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet)
        await #expect(throws: PackageCacheError.self) { try await Self.record(restarted, packager) }
        #expect(!FileManager.default.fileExists(atPath: built.path), "the differing rebuild is not left to be served")
    }

    /// The bytes the HTTP server would send for an `.immutableFile` body at `path` (through `openFiles`).
    static func sent(_ openFiles: OpenFileCache, _ path: String) throws -> [UInt8] {
        let file = try openFiles.open(path)
        var bytes = [UInt8](repeating: 0, count: Int(file.size))
        let count = bytes.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, 0) }
        return Array(bytes.prefix(max(0, count)))
    }

    /// Package files stay open for downloads (the server's `OpenFileCache`): what the cache removes or rebuilds is
    /// forgotten there at once, so a damaged file replaced by a rebuild is never served from a kept descriptor.
    @Test func aRebuiltPackageIsNeverServedFromAFileKeptOpen() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-cache-integrity")
        let packager = try Self.packager()
        let built = try await Self.record(
            try PackageCache(directory: scratch.path, logger: LiveryHarness.quiet), packager)
        let good = try scratch.read(URL(fileURLWithPath: built.path).lastPathComponent)

        // The file is damaged on disk while a server holds it open (a frozen clock: never revalidated by time).
        var damaged = good
        damaged[damaged.count - 5] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: built.path))
        let openFiles = OpenFileCache(validity: .seconds(3600), clock: { 0 })
        #expect(try Self.sent(openFiles, built.path) == damaged, "what a server that opened it now would send")

        let restarted = try PackageCache(
            directory: scratch.path, logger: LiveryHarness.quiet, fileChanged: { openFiles.invalidate($0) })
        let again = try await Self.record(restarted, packager)
        #expect(await restarted.buildCount == 1, "the damaged file was rebuilt")
        #expect(
            try Self.sent(openFiles, again.path) == good,
            "the rebuilt bytes, not the kept descriptor of the damaged file")
    }
}
