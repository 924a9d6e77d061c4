import Foundation
import Logging
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the data folder takes writes, found by writing to it: in the background, at most once a second, a
/// small file is created under the folder, written, fsync'd and removed. `/readyz` and admin writes read the last
/// result (`fault`) without touching the disk.
///
/// Why write rather than ask: an ext4 volume that hit an error under `errors=remount-ro` refuses every write
/// (`EROFS`) while `access(W_OK)` and `statvfs` still say it is writable, and a volume whose disk fails may only
/// tell on `fsync` (`EIO`). Only a real write, synced, shows either.
///
/// The check holds no lock against the server's own writes and its file (`.livery-write-check-<pid>`) never
/// collides with them. Until the first check finishes the folder counts as writable (the service's own start
/// already wrote to it).
public final class DataDirectoryWriteCheck: Sendable {
    /// The folder checked.
    public let directory: String
    /// Time between checks. Default 1 s.
    public let interval: Duration
    private let logger: Logger
    private let last = Mutex<StorageFault?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// A check of `directory`; nothing runs until `start()` (or `checkNow()`).
    public init(directory: String, interval: Duration = .seconds(1), logger: Logger) {
        self.directory = directory
        self.interval = interval
        self.logger = logger
    }

    /// The fault the last check found, nil when it wrote, synced and removed its file (or none ran yet).
    package var fault: StorageFault? { last.withLock { $0 } }

    /// Whether the last check could write to the folder.
    public var isWritable: Bool { fault == nil }

    /// Checks once now, keeps the result and returns it. Blocks on one small write and its fsync.
    @discardableResult
    package func checkNow() -> StorageFault? {
        // Out of descriptors the probe learns nothing about the volume (and the write it guards answers 503
        // server_busy on its own): the last result stands.
        guard let found = Self.probe(directory) else { return last.withLock { $0 } }
        let previous = last.withLock { last in
            defer { last = found.fault }
            return last
        }
        if previous != found.fault {
            if let error = found.error {
                logger.error(
                    "the data folder cannot be written; /readyz answers 503 and admin writes are refused",
                    metadata: ["data.dir": "\(directory)", "error": "\(error)"])
            } else {
                logger.notice("the data folder takes writes again", metadata: ["data.dir": "\(directory)"])
            }
        }
        return found.fault
    }

    /// Runs `checkNow()` every `interval` on a thread of its own until `stop()`, or until this value is gone.
    public func start() {
        let interval = interval
        Thread { [weak self] in
            while let check = self, !check.stopped.load(ordering: .acquiring) {
                check.checkNow()
                Thread.sleep(
                    forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds)
                        / 1e18)
            }
        }.start()
    }

    /// Ends the background checks (the last result stays).
    public func stop() { stopped.store(true, ordering: .releasing) }

    /// Writes, syncs and removes one small file in `directory`: nil error when all of it worked; nil when the
    /// process or the system had no file descriptor to open it with (EMFILE, ENFILE), which says nothing of the folder.
    private static func probe(_ directory: String) -> (fault: StorageFault?, error: SystemCallError?)? {
        let path = directory + "/.livery-write-check-\(Syscall.processID)"
        do throws(SystemCallError) {
            let file = try SystemFile.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o600)
            try file.writeAll(Array("livery write check\n".utf8))
            try file.sync()
            try SystemPath.removeIfPresent(path)
            return (nil, nil)
        } catch {
            if error.errno == EMFILE || error.errno == ENFILE { return nil }
            SystemPath.remove(path)
            return (StorageFault(errno: error.errno) == .full ? .full : .notWritable, error)
        }
    }
}
