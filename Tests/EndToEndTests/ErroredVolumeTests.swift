import Foundation
import HTTPTestSupport
import TestSupport
import Testing

/// The data folder on a real ext4 volume (a loop device over a scratch file) mounted with `errors=remount-ro`,
/// forced read-only by an error while the server runs (issue 22, faults 2): `access(W_OK)` still says writable,
/// every write fails with `EROFS`. Root and loop devices only; CI runs as root.
@Suite(.enabled(if: Ext4LoopVolume.isAvailable, Ext4LoopVolume.unavailableReason))
struct ErroredVolumeTests {
    @Test(.hangGuard)
    func anExt4VolumeForcedReadOnlyByAnErrorTakesTheServerOutOfReadinessAndRefusesAdminWrites() async throws {
        try await blocking {
            let workspace = try IntegrityTests.workspace()
            let volume = try Ext4LoopVolume(at: workspace.root + "/volume")
            defer { volume.unmount() }
            var environment = workspace.environment
            environment["LIVERY_DATA_DIR"] = volume.path + "/data"
            let livery = try LiveryProcess.start(IntegrityTests.arguments, environment: environment)
            // Gone before the volume is unmounted (defers run last first): its open files would keep it busy.
            defer {
                kill(livery.pid, SIGKILL)
                _ = try? livery.waitForExit(seconds: 20)
            }
            let admin = AdminCall(port: livery.port)
            try admin.waitUntilReady()
            let sign = try IntegrityTests.advertised(admin).sign
            #expect(!sign.isEmpty)

            try volume.forceError()
            #expect(
                access(volume.path + "/data", W_OK) == 0, "the trap this guards against: access(2) still says writable")
            // The background check writes at most once a second: bounded wait for it to notice.
            let deadline = Date().addingTimeInterval(15)
            var readiness = try TestClient(port: livery.port).get("/readyz")
            while readiness.status == 200, Date() < deadline {
                usleep(100_000)
                readiness = try TestClient(port: livery.port).get("/readyz")
            }
            #expect(readiness.status == 503)
            #expect(String(decoding: readiness.body, as: UTF8.self).contains("data-dir-not-writable"))

            let killSwitch = try admin.send(
                "PUT", "/admin/v1/killswitch", body: Array(DataFolderFaultTests.killSwitchOn.utf8),
                contentType: "application/json")
            try DataFolderFaultTests.expectRefusal(
                killSwitch, 503, "data_dir_not_writable", naming: volume.path + "/data")
            #expect(try IntegrityTests.advertised(admin).sign == sign, "polls keep being served")
            #expect(livery.output.contains("the data folder cannot be written"), "\(livery.output.suffix(2000))")
        }
    }
}

/// A 32 MiB ext4 file system in a scratch file, loop-mounted with `errors=remount-ro`; `forceError()` makes the
/// kernel record an error on it (`/sys/fs/ext4/<loop>/trigger_fs_error`), which remounts it read-only.
final class Ext4LoopVolume: Sendable {
    let path: String
    let image: String

    static var unavailableReason: Comment {
        "needs root and loop devices (/dev/loop-control); these tests are skipped"
    }

    /// Whether this machine lets the tests make one: root and loop devices. Anything else missing (mkfs.ext4 from
    /// e2fsprogs, ext4 itself) fails the test rather than skipping it: CI runs as root and installs e2fsprogs.
    static let isAvailable: Bool = {
        geteuid() == 0 && FileManager.default.fileExists(atPath: "/dev/loop-control")
    }()

    init(at path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        image = path + ".img"
        guard FileManager.default.createFile(atPath: image, contents: nil),
            truncate(image, 32 << 20) == 0
        else { throw E2EError(description: "cannot make \(image)") }
        try Self.run("/usr/sbin/mkfs.ext4", ["-q", "-F", image])
        try Self.run("/usr/bin/mount", ["-o", "loop,errors=remount-ro", image, path])
        self.path = path
    }

    /// Records an error on the file system, as a failing disk would: ext4 then remounts it read-only.
    func forceError() throws {
        let source = try Self.run("/usr/bin/findmnt", ["-n", "-o", "SOURCE", path]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let device = URL(fileURLWithPath: source).lastPathComponent
        try Data("1\n".utf8).write(to: URL(fileURLWithPath: "/sys/fs/ext4/\(device)/trigger_fs_error"))
    }

    /// Unmounts (lazily if something still holds it, so no mount outlives the test) and removes the image; the
    /// loop device goes with the mount (`mount -o loop` sets autoclear).
    func unmount() {
        if (try? Self.run("/usr/bin/umount", [path])) == nil { _ = try? Self.run("/usr/bin/umount", ["-l", path]) }
        unlink(image)
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try ExternalProcess.runBlocking(executable, arguments)
        let text = result.standardOutput + result.standardError
        guard result.status == 0 else {
            throw E2EError(description: "\(executable) \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }
}
