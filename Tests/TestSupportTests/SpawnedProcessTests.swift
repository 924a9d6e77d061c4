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
