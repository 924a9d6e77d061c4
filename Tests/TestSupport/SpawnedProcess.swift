import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A long-running child (a `livery serve`, nginx, HAProxy, PgBouncer, Varnish) started with `posix_spawn`, for
/// tests that keep it running, signal it and wait for it. `ExternalProcess` runs short tools on the same spawn.
///
/// Not Foundation's `Process`: on Linux, `Process.run()` lists /proc/self/fd with a `dirent` copy that can read
/// past the end of glibc's buffer and crash the whole test run (swift-corelibs-foundation PR 5472; seen here in
/// about one full run in five), and it keeps a run-loop thread of its own for every test process.
///
/// Invariants: the child is reaped exactly once, by whichever of `isRunning`, `waitUntilExit` or `deinit` sees it
/// exit first (`waitpid` on that one pid only, never on a pid already reaped, which the system may have reused);
/// standard input is /dev/null; descriptors other than 0, 1 and 2 are closed in the child; the child starts with no
/// signal blocked and SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 at their default actions, whichever
/// thread launched it.
public final class SpawnedProcess: Sendable {
    /// Where the child's standard output and standard error go.
    public enum Output: Sendable {
        /// /dev/null.
        case discard
        /// Both streams appended to this file (created if missing).
        case file(String)
        /// Two pipes, read through `standardOutput` and `standardError`.
        case pipes
    }

    /// Why the child could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public let call: String
        public let code: Int32
        public var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    public let pid: pid_t
    /// The read ends of the child's streams with `.pipes`, closed when the handles go away; nil otherwise.
    public let standardOutput: FileHandle?
    public let standardError: FileHandle?
    /// The raw `waitpid` status once the child has been reaped.
    private let reaped = Mutex<Int32?>(nil)

    private init(pid: pid_t, standardOutput: FileHandle?, standardError: FileHandle?) {
        self.pid = pid
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Starts `executable` (an absolute path) with `arguments` (without argv[0]), in `directory` if given, with
    /// `environment` (this process's when nil).
    public static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, output: Output = .discard
    ) throws(SpawnError) -> SpawnedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        switch output {
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .pipes:
            for target in [Int32(1), 2] {
                var ends: [Int32] = [0, 0]
                guard Spawn.pipeWithCloseOnExec(&ends, O_CLOEXEC) == 0 else {
                    let code = errno
                    for fd in parentEnds { close(fd) }
                    throw SpawnError(call: "pipe2", code: code)
                }
                parentEnds.append(ends[0])
                childEnds.append(ends[1])
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
            }
        }
        if let directory {
            guard Spawn.changeDirectoryInChild(&actions, directory) == 0 else {
                for fd in parentEnds { close(fd) }
                throw SpawnError(call: "posix_spawn_file_actions_addchdir_np", code: errno)
            }
        }
        _ = Spawn.closeFromInChild(&actions, 3)
        // The child starts with no signal blocked, and with the signals tests send at their default action: the
        // launching thread's mask would otherwise pass on (a Foundation `Thread`, as `blocking` starts, blocks
        // nearly every signal), and a `kill -TERM` of an nginx or a `sleep` would wait in its pending set. Other
        // dispositions are inherited as before (an ignored SIGPIPE stays ignored).
        #if canImport(Glibc)
            var attributes = posix_spawnattr_t()
        #else
            var attributes: posix_spawnattr_t? = nil
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var sentByTests = sigset_t()
        sigemptyset(&sentByTests)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&sentByTests, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &sentByTests)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let environment = environment ?? ProcessInfo.processInfo.environment
        let arguments = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in arguments + variables { free(pointer) } }
        var pid: pid_t = 0
        let result = arguments.withUnsafeBufferPointer { argv in
            variables.withUnsafeBufferPointer { envp in
                posix_spawn(
                    &pid, executable, &actions, &attributes, UnsafeMutablePointer(mutating: argv.baseAddress!),
                    UnsafeMutablePointer(mutating: envp.baseAddress!))
            }
        }
        guard result == 0 else {
            for fd in parentEnds { close(fd) }
            throw SpawnError(call: "posix_spawn \(executable)", code: result)
        }
        LiveChildren.add(pid)
        let handles = parentEnds.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        return SpawnedProcess(pid: pid, standardOutput: handles.first, standardError: handles.last)
    }

    /// Whether the child still runs (reaping it, without blocking, once it has ended).
    public var isRunning: Bool {
        reaped.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, WNOHANG)
            if result == pid {
                status = raw
                LiveChildren.remove(pid)
                return false
            }
            // -1 with ECHILD: no such child any more (cannot happen while this value alone reaps it).
            if result < 0 && errno == ECHILD {
                status = 0
                LiveChildren.remove(pid)
            }
            return result == 0 || (result < 0 && errno == EINTR)
        }
    }

    /// Sends `signal` to the child unless it has been reaped (its pid may since belong to another process).
    public func send(_ signal: Int32) {
        reaped.withLock { status in
            if status == nil { kill(pid, signal) }
        }
    }

    /// Asks the child to stop (SIGTERM).
    public func terminate() { send(SIGTERM) }

    /// Asks the child to stop (SIGTERM) and, on a thread of its own, waits up to `grace` for it, then kills and
    /// reaps it: for `deinit`s, which must neither block nor leave a child running.
    public func terminateInBackground(grace: Duration = .seconds(20)) {
        guard isRunning else { return }
        terminate()
        Thread { [self] in
            waitUntilExit(timeout: grace)
        }.start()
    }

    /// Waits until the child has ended, checking every 5 ms; with `timeout`, false if it still runs then.
    @discardableResult
    public func waitUntilExit(timeout: Duration? = nil) -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while isRunning {
            if let deadline, ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// As Foundation's `Process` reports it: the exit code, or the number of the signal that ended the child;
    /// nil while it runs.
    public var terminationStatus: Int32? {
        guard !isRunning, let raw = reaped.withLock({ $0 }) else { return nil }
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
    }

    /// Whether a signal ended the child (false while it runs).
    public var endedBySignal: Bool {
        guard !isRunning, let raw = reaped.withLock({ $0 }) else { return false }
        return raw & 0x7F != 0
    }

    /// A child still running when its value goes away is killed and reaped, so no test leaves one behind.
    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            LiveChildren.remove(pid)
        }
    }
}

/// The children `SpawnedProcess` started and has not reaped, killed (SIGKILL) when the test process exits: a value
/// still alive at the exit, or one whose `terminateInBackground` wait the exit cut short, would otherwise leave its
/// child running after the test run (a `livery serve` was once found so). A pid leaves the set when it is reaped,
/// so the exit never signals a pid the system may have given to another process.
enum LiveChildren {
    private static let pids = Mutex<Set<pid_t>>([])
    private static let killedAtExit: Void = { _ = atexit { LiveChildren.killAll() } }()

    static func add(_ pid: pid_t) {
        _ = killedAtExit
        pids.withLock { _ = $0.insert(pid) }
    }

    static func remove(_ pid: pid_t) {
        pids.withLock { _ = $0.remove(pid) }
    }

    private static func killAll() {
        for pid in pids.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}

/// glibc's spawn extensions the Glibc module does not export, looked up by name (glibc 2.29 and 2.34; every
/// Debian this project supports has them).
enum Spawn {
    static let pipeWithCloseOnExec = unsafeBitCast(
        symbol("pipe2"), to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    static let closeFromInChild = unsafeBitCast(
        symbol("posix_spawn_file_actions_addclosefrom_np"),
        to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    static let changeDirectoryInChild = unsafeBitCast(
        symbol("posix_spawn_file_actions_addchdir_np"),
        to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            preconditionFailure("glibc has no \(name) (needs glibc 2.34 or later)")
        }
        return address
    }
}
