import Foundation
import SkinModel
import TestSupport
import Testing

@testable import LiveryKit

#if canImport(Glibc)
    import Glibc
#endif

/// LiveryKit's API in process, against the real server: shared refreshes, the change stream, which skin is on trial
/// (a crash before `markApplied()`), a full disk.
@Suite(.serialized) struct ClientTests {
    static func configuration(
        _ stage: Stage, url: String, storage: String, keys: Bool = true
    ) throws -> LiveryConfiguration {
        var trusted: [String: String] = [:]
        if keys, let key = stage.key {
            let text = try String(contentsOfFile: key.publicKey, encoding: .utf8)
            let base64 = try #require(text.split(separator: "\n").dropFirst(2).first).dropFirst(2)
            trusted["k1"] = String(base64)
        }
        return LiveryConfiguration(
            serverURL: try #require(URL(string: url)), appID: "kit", platform: .ios, appVersion: "7.2.0",
            deviceID: "in-process",
            trustedKeys: trusted, storage: URL(fileURLWithPath: storage, isDirectory: true))
    }

    @Test func concurrentRefreshesShareOneRequestAndChangesAreAnnounced() async throws {
        let stage = try await Stage.make()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let client = try LiveryClient(
            configuration: try Self.configuration(stage, url: proxy.url, storage: stage.workspace.root + "/app"))
        #expect(client.current == nil)
        var changes = client.changes.makeAsyncIterator()
        async let one: Void = client.refresh()
        async let two: Void = client.refresh()
        async let three: Void = client.refresh()
        _ = try await (one, two, three)
        #expect(proxy.requests.filter { $0.path.hasPrefix("/api/v1/catalog") }.count == 1)
        #expect(client.source == .catalog)
        #expect(proxy.requests.filter { $0.path.hasPrefix("/api/v1/packages/") }.count == 1)
        let announced = await changes.next()
        #expect(announced??.id == "kit-a")
        let skin = try #require(client.current)
        #expect(skin.value("home", "value_marker") == .string("A1"))
        #expect(skin.color("home", "color_background")?.description == "#1E90FFFF")
        try client.markApplied()

        // A second client on the same folder (the next launch) starts with the stored skin, before any network.
        let relaunched = try LiveryClient(
            configuration: try Self.configuration(
                stage, url: "http://127.0.0.1:1", storage: stage.workspace.root + "/app"))
        #expect(relaunched.current?.sign == skin.sign)
        #expect(relaunched.deviceID == "in-process")
    }

    @Test func aGeneratedDeviceIDIsKeptAcrossLaunches() throws {
        let scratch = try ScratchDirectory(prefix: "livery-kit-device")
        let configuration = LiveryConfiguration(
            serverURL: try #require(URL(string: "http://127.0.0.1:1")), appID: "kit", platform: .ios, appVersion: "1.0",
            storage: URL(fileURLWithPath: scratch.path + "/s", isDirectory: true))
        let first = try LiveryClient(configuration: configuration).deviceID
        let second = try LiveryClient(configuration: configuration).deviceID
        #expect(!first.isEmpty && first == second)
    }

    /// A launch that confirmed skin A with `markApplied()`, then a background refresh that applied B (released
    /// meanwhile); `relaunch()` is the next launch on the same storage, without the network.
    struct MidSessionSwitch {
        let stage: Stage
        let first: LiveryClient
        let a: String
        let b: String

        static func make() async throws -> MidSessionSwitch {
            let stage = try await Stage.make()
            let first = try LiveryClient(
                configuration: try ClientTests.configuration(
                    stage, url: stage.server.url, storage: stage.workspace.root + "/app"))
            try await first.refresh()
            try first.markApplied()
            let a = try #require(first.current?.sign)
            try await stage.releaseNewVersion(marker: "A2")
            try await first.refresh()
            let b = try #require(first.current?.sign)
            #expect(b != a)
            return MidSessionSwitch(stage: stage, first: first, a: a, b: b)
        }

        func relaunch() throws -> LiveryClient {
            try LiveryClient(
                configuration: try ClientTests.configuration(
                    stage, url: "http://127.0.0.1:1", storage: stage.workspace.root + "/app"))
        }
    }

    /// A background refresh applies a new skin the app never draws before it ends: the new skin is not taken for a
    /// crash. It goes on trial at the next launch, and only a launch that ends unconfirmed with it blocks it.
    @Test func aSkinAppliedAfterTheLaunchWasConfirmedGoesOnTrialAtTheNextLaunch() async throws {
        let run = try await MidSessionSwitch.make()
        // The app ended without drawing B: the next launch shows B, reports no crash, and puts B on trial.
        let second = try run.relaunch()
        #expect(second.current?.sign == run.b)
        #expect(!second.pendingReports.contains { $0.stage == .crash }, "\(second.pendingReports)")
        // That launch crashed while drawing B: the one after reverts to A, blocks B and reports B's crash.
        let third = try run.relaunch()
        #expect(third.current?.sign == run.a)
        #expect(
            third.pendingReports.contains { $0.skinSign == run.b && $0.stage == .crash }, "\(third.pendingReports)")
    }

    /// Calling `markApplied()` again once the app redrew with a skin from `changes` confirms that skin at once: a
    /// later launch that ends unconfirmed does not block it.
    @Test func markAppliedAgainConfirmsASkinAppliedMidSession() async throws {
        let run = try await MidSessionSwitch.make()
        try run.first.markApplied()
        #expect(
            run.first.pendingReports.contains { $0.skinSign == run.b && $0.stage == nil },
            "B's applied waits for the next launch")
        #expect(try run.relaunch().current?.sign == run.b)
        let third = try run.relaunch()
        #expect(third.current?.sign == run.b, "a confirmed skin is never on trial again")
        #expect(!third.pendingReports.contains { $0.stage == .crash })
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskKeepsTheCurrentSkinAndLeavesNoPartialFolder() async throws {
        let stage = try await Stage.make()
        let mountPoint = stage.workspace.root + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=1m") == 0 else {
            Issue.record("mount tmpfs: errno \(errno)")
            return
        }
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let storage = mountPoint + "/app"
        let client = try LiveryClient(
            configuration: try Self.configuration(stage, url: stage.server.url, storage: storage))
        try await client.refresh()
        try client.markApplied()
        let kept = try #require(client.current)
        // Fill the volume to its last block, then release a new version.
        let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let chunk = [UInt8](repeating: 0xA5, count: 4096)
        while chunk.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        close(filler)
        try await stage.releaseNewVersion(marker: "A2")
        await #expect(throws: LiveryError.self) { try await client.refresh() }
        do {
            try await client.refresh()
        } catch {
            #expect(error.code == .disk, "\(error)")
        }
        #expect(client.current?.sign == kept.sign)
        #expect(listing(storage + "/packages") == [kept.sign])
        #expect(listing(storage + "/staging").isEmpty)
        let relaunched = try LiveryClient(
            configuration: try Self.configuration(stage, url: "http://127.0.0.1:1", storage: storage))
        #expect(relaunched.current?.sign == kept.sign)
    }
}
