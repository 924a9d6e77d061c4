import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Long-running children: started, signalled, waited for and always reaped, without Foundation's `Process`.
@Suite struct SpawnedProcessTests {
    @Test func anExitCodeAndASignalReadAsFoundationReportsThem() throws {
        let exits = try SpawnedProcess.launch("/bin/sh", ["-c", "exit 7"])
        #expect(exits.waitUntilExit(timeout: .seconds(30)))
        #expect(exits.terminationStatus == 7)
        #expect(!exits.endedBySignal)

        let sleeper = try SpawnedProcess.launch("/bin/sleep", ["60"])
        #expect(sleeper.isRunning)
        #expect(sleeper.terminationStatus == nil)
        sleeper.send(SIGKILL)
        #expect(sleeper.waitUntilExit(timeout: .seconds(30)))
        #expect(sleeper.terminationStatus == SIGKILL)
        #expect(sleeper.endedBySignal)
    }

    @Test func environmentFolderAndFileOutputReachTheChild() throws {
        let scratch = try ScratchDirectory(prefix: "spawned")
        let log = scratch.path("out.log")
        let child = try SpawnedProcess.launch(
            "/bin/sh", ["-c", "echo \"$GREETING\"; pwd; echo oops >&2"], environment: ["GREETING": "hello"],
            directory: scratch.path, output: .file(log))
        #expect(child.waitUntilExit(timeout: .seconds(30)))
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let folder = URL(fileURLWithPath: scratch.path).resolvingSymlinksInPath().path
        #expect(text == "hello\n\(folder)\noops\n")
    }

    /// A child launched from a thread that blocks SIGTERM and SIGUSR1 (a Foundation `Thread`, as `blocking` starts,
    /// blocks nearly every signal) starts with nothing blocked, so a `kill -TERM` reaches it at once.
    @Test func theChildStartsWithNoSignalBlockedWhateverTheLaunchingThreadBlocks() async throws {
        let status = try await blocking { () throws -> String in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            sigaddset(&blocked, SIGUSR1)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &blocked, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            var own = sigset_t()
            pthread_sigmask(SIG_BLOCK, nil, &own)
            #expect(sigismember(&own, SIGTERM) == 1, "the launching thread blocks SIGTERM")
            let child = try SpawnedProcess.launch("/bin/cat", ["/proc/self/status"], output: .pipes)
            let output = try #require(child.standardOutput).readDataToEndOfFile()
            #expect(child.waitUntilExit(timeout: .seconds(30)))
            return String(decoding: output, as: UTF8.self)
        }
        let mask = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
        #expect(mask == "SigBlk:\t0000000000000000", "\(status)")

        let sleeper = try await blocking { () throws -> SpawnedProcess in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            return try SpawnedProcess.launch("/bin/sleep", ["60"])
        }
        sleeper.send(SIGTERM)
        #expect(sleeper.waitUntilExit(timeout: .seconds(30)))
        #expect(sleeper.terminationStatus == SIGTERM && sleeper.endedBySignal)
    }

    @Test func pipesCarryEachStreamSeparately() throws {
        let child = try SpawnedProcess.launch("/bin/sh", ["-c", "printf out; printf err >&2"], output: .pipes)
        let output = try #require(child.standardOutput).readDataToEndOfFile()
        let errors = try #require(child.standardError).readDataToEndOfFile()
        #expect(child.waitUntilExit(timeout: .seconds(30)))
        #expect(String(decoding: output, as: UTF8.self) == "out")
        #expect(String(decoding: errors, as: UTF8.self) == "err")
    }

    @Test func aChildStillRunningWhenItsValueGoesAwayIsKilledAndReaped() throws {
        var child: SpawnedProcess? = try SpawnedProcess.launch("/bin/sleep", ["60"])
        let pid = try #require(child?.pid)
        child = nil
        // Reaped: the pid is no child of this process any more (no zombie left behind).
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD)
    }

    @Test func aMissingExecutableFailsToLaunch() {
        #expect(throws: SpawnedProcess.SpawnError.self) {
            _ = try SpawnedProcess.launch("/nonexistent/livery-test-binary", [])
        }
    }
}
