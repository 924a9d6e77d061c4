import Foundation
import HTTPTestSupport
import LiveryCrypto
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What is served is what was stored: the real `livery serve`, its data folder changed on disk between runs
/// (bytes flipped, files truncated, swapped or removed) the way a damaged volume or a careless operator would.
@Suite struct IntegrityTests {
    static let poll = "/api/v1/skin?app=demo&platform=ios&appVersion=7.0.0"
    static let otherPoll = "/api/v1/skin?app=other&platform=ios&appVersion=7.0.0"
    static let release = #"{"startsAt": "2000-01-01T00:00:00Z", "endsAt": "2100-01-01T00:00:00Z"}"#
    static let arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "info"]

    /// A released skin of `app` with one resource file (`anim/data.json`) packed as is.
    static func skin(id: String, app: String, resource: String) -> [String: [UInt8]] {
        [
            "skin.json": Array(#"{"id":"\#(id)","title":"Integrity","app":"\#(app)","release":\#(release)}"#.utf8),
            "config.json": Array(#"{"home":{"resources":{"resource_data":"anim/data.json"}}}"#.utf8),
            "anim/data.json": Array(resource.utf8)
        ]
    }

    /// A workspace whose skins folder holds `demo-skin` (app `demo`) and `other-skin` (app `other`).
    static func workspace() throws -> AdminWorkspace {
        let workspace = try AdminWorkspace()
        try AdminWorkspace.write(
            skin(id: "demo-skin", app: "demo", resource: #"{"frames": [1, 2, 3], "owner": "demo"}"#),
            into: workspace.skins + "/demo-skin")
        try AdminWorkspace.write(
            skin(id: "other-skin", app: "other", resource: #"{"frames": [4, 5, 6], "owner": "other"}"#),
            into: workspace.skins + "/other-skin")
        return workspace
    }

    /// The package files in the workspace's package cache.
    static func packageFiles(_ workspace: AdminWorkspace) throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: workspace.data + "/packages").filter {
                $0.hasSuffix(".zip")
            })
    }

    /// The poll answer's `skinSign`, `sha256` and `size`, and the package's bytes.
    struct Advertised: Equatable {
        let sign: String
        let sha256: String
        let size: Int
        let bytes: [UInt8]
    }

    static func advertised(_ admin: AdminCall, poll: String = Self.poll) throws -> Advertised {
        let (status, answer) = try admin.json("GET", poll)
        #expect(status == 200)
        let sign = answer["skinSign"] as? String ?? ""
        guard !sign.isEmpty, let url = answer["packageUrl"] as? String else {
            return Advertised(sign: sign, sha256: "", size: 0, bytes: [])
        }
        let download = try admin.send("GET", url)
        #expect(download.status == 200)
        return Advertised(
            sign: sign, sha256: answer["sha256"] as? String ?? "", size: answer["size"] as? Int ?? -1,
            bytes: download.body)
    }

    /// Runs `livery serve` on `workspace` until ready, hands it to `body`, then stops it with SIGTERM.
    static func withServer<T>(
        _ workspace: AdminWorkspace, _ body: (AdminCall, LiveryProcess) throws -> T
    ) throws -> T {
        let livery = try LiveryProcess.start(arguments, environment: workspace.environment)
        let admin = AdminCall(port: livery.port)
        try admin.waitUntilReady()
        let result = try body(admin, livery)
        #expect(try livery.stop(signal: SIGTERM) == 0)
        return result
    }

    // MARK: - Point 1: cached packages

    enum Damage: String, CaseIterable, Sendable {
        case flipOneByte, truncateToZero, swapInAnotherSkinsPackage
    }

    @Test(.hangGuard, arguments: Damage.allCases)
    func aCachedPackageDamagedOnDiskIsNeverReadvertisedUnderTheSameSign(damage: Damage) async throws {
        try await blocking {
            let workspace = try Self.workspace()
            let (original, other) = try Self.withServer(workspace) { admin, _ in
                (try Self.advertised(admin), try Self.advertised(admin, poll: Self.otherPoll))
            }
            #expect(!original.sign.isEmpty && !other.sign.isEmpty && original.sign != other.sign)
            #expect(SHA256.hexHash(original.bytes) == original.sha256 && original.bytes.count == original.size)

            let package = workspace.data + "/packages/\(original.sign).zip"
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: package)))
            switch damage {
            case .flipOneByte: bytes[bytes.count / 2] ^= 0x01
            case .truncateToZero: bytes = []
            case .swapInAnotherSkinsPackage:
                bytes = try [UInt8](
                    Data(contentsOf: URL(fileURLWithPath: workspace.data + "/packages/\(other.sign).zip")))
            }
            try Data(bytes).write(to: URL(fileURLWithPath: package))

            let (again, log) = try Self.withServer(workspace) { admin, livery in
                (try Self.advertised(admin), livery.output)
            }
            #expect(again == original, "the same sign must come with the same bytes, digest and size")
            #expect(log.contains("cached package does not match its build record"))
            #expect(log.contains(package))
        }
    }

    // MARK: - Point 2: stored files

    @Test(.hangGuard)
    func aStoredFileFlippedInPlaceIsNeitherPackedNorServed() async throws {
        try await blocking {
            let workspace = try Self.workspace()
            let resource =
                Self.skin(id: "demo-skin", app: "demo", resource: #"{"frames": [1, 2, 3], "owner": "demo"}"#)[
                    "anim/data.json"] ?? []
            let digest = SHA256.hexHash(resource)
            let original = try Self.withServer(workspace) { admin, _ in try Self.advertised(admin) }
            let builtBefore = try Self.packageFiles(workspace)
            #expect(!original.sign.isEmpty)

            // Same size, one byte different: only the digest can tell.
            let blob = workspace.data + "/store/blobs/\(digest.prefix(2))/\(digest.dropFirst(2))"
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: blob)))
            #expect(bytes == resource)
            bytes[2] ^= 0x20
            try Data(bytes).write(to: URL(fileURLWithPath: blob))

            try Self.withServer(workspace) { admin, livery in
                let answer = try Self.advertised(admin)
                #expect(answer.sign == "", "a skin with a damaged file is not served (got sign \(answer.sign))")
                #expect(try Self.advertised(admin, poll: Self.otherPoll).sign != "", "other skins still are")
                let file = try admin.json("GET", "/admin/v1/skins/demo-skin/versions/1/files/anim/data.json")
                #expect(file.status == 500)
                let error = file.object["error"] as? [String: Any]
                #expect(error?["code"] as? String == "stored_file_corrupt")
                #expect((error?["message"] as? String)?.contains("anim/data.json") == true)
                #expect((error?["details"] as? [String: Any])?["field"] as? String == "path")
                let log = livery.output
                #expect(log.contains("released skin not served"))
                #expect(log.contains(blob), "the log names the damaged blob")
                #expect(log.contains("anim/data.json"))
                // The undamaged skin's files are still served byte for byte.
                let config = try admin.send("GET", "/admin/v1/skins/other-skin/versions/1/config.json")
                #expect(config.status == 200)
            }
            let builtAfter = try Self.packageFiles(workspace)
            #expect(builtAfter == builtBefore, "no package was built from the damaged file")
        }
    }

    // MARK: - Point 3: a lost store

    /// What is removed from the data folder after a first run, and what the refusal must name.
    struct Loss: Sendable, CustomStringConvertible {
        let removed: [String]
        let named: [String]
        var description: String { removed.joined(separator: " + ") }
    }

    @Test(
        .hangGuard,
        arguments: [
            // The store folder lost while the import marker says it was seeded.
            Loss(removed: ["store"], named: ["/store", "import-complete"]),
            // The marker gone too, so only the store itself can tell its pieces disagree.
            Loss(removed: ["import-complete", "store/state.json"], named: ["/store/state.json"])
        ])
    func aLostOrInconsistentStoreStopsTheStartNamingIt(loss: Loss) async throws {
        try await blocking {
            let workspace = try Self.workspace()
            let served = try Self.withServer(workspace) { admin, _ in try Self.advertised(admin) }
            #expect(served.sign != "")
            for path in loss.removed { try FileManager.default.removeItem(atPath: workspace.data + "/" + path) }

            let run = try LiveryProcess.runSeparately(Self.arguments, environment: workspace.environment)
            #expect(run.status == 2)
            for text in loss.named {
                #expect(
                    run.standardError.contains(text == "import-complete" ? text : workspace.data + text),
                    "\(run.standardError)")
            }
            #expect(
                !FileManager.default.fileExists(atPath: workspace.data + "/store/state.json"),
                "nothing was started over it")
        }
    }

    // MARK: - Point 4: leftovers

    @Test(.hangGuard)
    func temporaryPackageFilesLeftByAKillAreRemovedAtStart() async throws {
        try await blocking {
            let workspace = try Self.workspace()
            let original = try Self.withServer(workspace) { admin, _ in try Self.advertised(admin) }
            let packages = workspace.data + "/packages"
            let leftovers = [".\(original.sign).zip.tmp-a1B2c3", ".\(String(repeating: "0", count: 32)).zip.tmp-XyZ987"]
            for name in leftovers {
                try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: packages + "/" + name))
            }

            try Self.withServer(workspace) { admin, _ in
                #expect(try Self.advertised(admin) == original)
                let names = try FileManager.default.contentsOfDirectory(atPath: packages)
                #expect(names.filter { $0.contains(".tmp-") }.isEmpty, "left: \(names)")
            }
        }
    }
}

/// Faults of the data folder's volume, made real: a small tmpfs filled to the last block, and a read-only bind
/// mount over the data folder while the server runs (root ignores permission bits, not a read-only mount).
@Suite(.enabled(if: TemporaryMount.isAvailable, "mounting a tmpfs needs root (CAP_SYS_ADMIN); these tests are skipped"))
struct DataFolderFaultTests {
    static let upload = "/admin/v1/skins"

    /// A zip of a new version of `demo-skin` carrying `bytes` of payload (so a full volume cannot take it).
    static func newVersion(payload: Int) throws -> [UInt8] {
        var files = IntegrityTests.skin(id: "demo-skin", app: "demo", resource: #"{"v": 2}"#)
        var random = SplitMix64(seed: 0x5EED_F111)
        files["anim/payload.bin"] = random.bytes(payload)
        files["config.json"] = Array(
            #"{"home":{"resources":{"resource_data":"anim/data.json","resource_p":"anim/payload.bin"}}}"#.utf8)
        return try AdminWorkspace.zip(files)
    }

    /// `livery serve` with its data folder on a fresh 8 MiB tmpfs, ready and serving `demo-skin`, handed to
    /// `body` with the mount and the sign polls get; stopped with SIGTERM and unmounted afterwards.
    static func onVolume(_ body: (TemporaryMount, AdminCall, _ sign: String) throws -> Void) throws {
        let workspace = try IntegrityTests.workspace()
        let mount = try TemporaryMount(at: workspace.root + "/volume", megabytes: 8)
        defer { mount.unmount() }
        var environment = workspace.environment
        environment["LIVERY_DATA_DIR"] = mount.path
        let livery = try LiveryProcess.start(IntegrityTests.arguments, environment: environment)
        let admin = AdminCall(port: livery.port)
        try admin.waitUntilReady()
        let sign = try IntegrityTests.advertised(admin).sign
        #expect(!sign.isEmpty)
        try body(mount, admin, sign)
        #expect(try livery.stop(signal: SIGTERM) == 0)
    }

    /// Checks a refused admin write: `status`, `code`, `Retry-After`, and a message naming the data folder.
    static func expectRefusal(_ response: TestResponse, _ status: Int, _ code: String, naming folder: String) throws {
        #expect(response.status == status)
        #expect(response.header("Retry-After") != nil)
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let error = try #require(body?["error"] as? [String: Any])
        #expect(error["code"] as? String == code)
        #expect((error["message"] as? String)?.contains(folder) == true, "names the data folder")
        #expect((error["details"] as? [String: Any])?["field"] as? String == "data-dir")
    }

    static let killSwitchOn = #"{"enabled": true, "reason": "test"}"#

    /// What goes wrong with the data folder's volume, and the answer admin writes must get.
    enum VolumeFault: String, CaseIterable, Sendable {
        /// Filled to the last block: 507 `insufficient_storage`.
        case full
        /// Mounted read-only under the running server: 503 `data_dir_not_writable`.
        case readOnly

        var answer: (status: Int, code: String) {
            switch self {
            case .full: (507, "insufficient_storage")
            case .readOnly: (503, "data_dir_not_writable")
            }
        }

        /// Brings the fault about on `mount`; returns how to end it (safe to call twice).
        func inflict(on mount: TemporaryMount) throws -> () -> Void {
            switch self {
            case .full:
                let filler = try mount.fill()
                return { unlink(filler) }
            case .readOnly:
                let readOnly = try mount.bindReadOnly()
                return { readOnly.unmount() }
            }
        }
    }

    @Test(.hangGuard, arguments: VolumeFault.allCases)
    func adminWritesTheDataFolderCannotTakeAreAnsweredNamingItAndPollsKeepBeingServed(fault: VolumeFault) async throws {
        try await blocking {
            try Self.onVolume { mount, admin, sign in
                let end = try fault.inflict(on: mount)
                defer { end() }
                // Big enough that a full volume cannot take it whatever a block or two left over.
                let body = try Self.newVersion(payload: 256 << 10)
                let refused = try admin.send("POST", Self.upload, body: body, contentType: "application/zip")
                try Self.expectRefusal(refused, fault.answer.status, fault.answer.code, naming: mount.path)
                let killSwitch = try admin.send(
                    "PUT", "/admin/v1/killswitch", body: Array(Self.killSwitchOn.utf8), contentType: "application/json")
                try Self.expectRefusal(killSwitch, fault.answer.status, fault.answer.code, naming: mount.path)
                #expect(try IntegrityTests.advertised(admin).sign == sign, "polls keep being served")

                // The fault over, the same upload goes through once the background write check (at most once a
                // second) has seen the folder take a write again: /readyz says so first.
                end()
                try admin.waitUntilReady()
                #expect(try admin.send("POST", Self.upload, body: body, contentType: "application/zip").status == 201)
            }
        }
    }
}

/// A tmpfs mounted for one test (root only), unmounted by `unmount()`; `isAvailable` says whether this machine
/// lets the tests mount at all.
final class TemporaryMount: Sendable {
    let path: String
    private let mounted = Mutex(true)

    private static let bind: UInt = 4096  // MS_BIND
    private static let remount: UInt = 32  // MS_REMOUNT
    private static let readOnly: UInt = 1  // MS_RDONLY

    /// Whether a tmpfs can be mounted here (tried once, in a scratch folder).
    static let isAvailable: Bool = {
        guard let scratch = try? ScratchDirectory(prefix: "livery-mount-probe"),
            let probe = try? TemporaryMount(at: scratch.path + "/probe", megabytes: 1)
        else { return false }
        probe.unmount()
        return true
    }()

    init(at path: String, megabytes: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(megabytes)m") == 0 else {
            throw E2EError(description: "mount tmpfs at \(path): errno \(errno)")
        }
        self.path = path
    }

    private init(bound path: String) { self.path = path }

    /// Mounts a read-only view of this folder over itself: files opened before stay writable (as on a volume
    /// remounted read-only under a running process, which Linux refuses while files are open for writing),
    /// every new write through the path fails with `EROFS`. Unmount the returned mount to undo.
    func bindReadOnly() throws -> TemporaryMount {
        guard Glibc.mount(path, path, nil, Self.bind, nil) == 0 else {
            throw E2EError(description: "bind mount \(path): errno \(errno)")
        }
        guard Glibc.mount(path, path, nil, Self.remount | Self.bind | Self.readOnly, nil) == 0 else {
            let code = errno
            umount2(path, 0)
            throw E2EError(description: "remount \(path) read-only: errno \(code)")
        }
        return TemporaryMount(bound: path)
    }

    /// Fills the volume to its last block with one file and returns the file's path.
    func fill() throws -> String {
        let filler = path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw E2EError(description: "open \(filler): errno \(errno)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xA5, count: 4096)
        // Bounded by the volume's size; the last partial write ends with ENOSPC.
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else { throw E2EError(description: "filling \(path) stopped with errno \(errno)") }
        return filler
    }

    /// Unmounts (lazily, so a descriptor the server still holds cannot keep it mounted); only the first call does.
    func unmount() {
        mounted.withLock { mounted in
            if mounted { umount2(path, Int32(MNT_DETACH)) }
            mounted = false
        }
    }
}
