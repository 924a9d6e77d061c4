import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process whose stdout and stderr come back through one pipe, read line by line with a deadline.
final class ChildProcess {
    let pid: pid_t
    private let output: Int32
    private var buffer = [UInt8]()
    private(set) var reachedEnd = false

    enum Failure: Error, CustomStringConvertible {
        case spawn(Int32)
        case pipe(Int32)
        var description: String {
            switch self {
            case .spawn(let code): "posix_spawn failed: errno \(code)"
            case .pipe(let code): "pipe failed: errno \(code)"
            }
        }
    }

    init(executable: String, arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure.pipe(errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(fds[1])
        guard result == 0 else {
            close(fds[0])
            throw Failure.spawn(result)
        }
        self.pid = pid
        self.output = fds[0]
    }

    deinit {
        close(output)
        if !reaped {
            kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// The next complete line, or nil at end of output or when `deadline` passes.
    func readLine(deadline: Date) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if reachedEnd { return nil }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 1000)) + 1)
            if ready < 0 && errno != EINTR { reachedEnd = true }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                reachedEnd = true
                // A last line without a newline still counts as output.
                if !buffer.isEmpty {
                    let line = String(decoding: buffer, as: UTF8.self)
                    buffer.removeAll()
                    return line
                }
                return nil
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Sends SIGKILL; true if the process was still there to receive it.
    @discardableResult
    func killNow() -> Bool {
        kill(pid, SIGKILL) == 0
    }

    private var reaped = false

    /// Waits for the process to end; returns the signal that ended it, or nil with its exit code.
    func wait() -> (signal: Int32?, exitCode: Int32?) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return (nil, nil) }
        }
        reaped = true
        let signal = status & 0x7F
        if signal == 0 { return (nil, (status >> 8) & 0xFF) }
        return (signal, nil)
    }
}
