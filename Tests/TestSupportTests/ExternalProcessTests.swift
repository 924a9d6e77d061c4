import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The child-process runner every test target uses: it reports what the child did, bounds how long it may run,
/// and never holds a cooperative pool thread while the child runs.
@Suite struct ExternalProcessTests {
    @Test func returnsTheStatusAndEachStreamSeparately() async throws {
        let run = try await ExternalProcess.run("sh", ["-c", "printf out; printf err >&2; exit 3"])
        #expect(run.status == 3)
        #expect(run.standardOutput == "out")
        #expect(run.standardError == "err")
        #expect(run.transcript == "exit 3\nstdout: out\nstderr: err")
    }

    @Test func theChildInheritsOnlyItsThreeStandardStreams() async throws {
        // A descriptor the test process holds open (without close-on-exec) must not leak into the child, or the
        // child could keep another child's pipe, or a test server's socket, open.
        let held = open("/dev/null", O_RDONLY)
        defer { close(held) }
        let run = try await ExternalProcess.run("/bin/ls", ["/proc/self/fd"])
        // ls's own descriptor for reading the directory is the fourth.
        #expect(run.standardOutput.split(separator: "\n") == ["0", "1", "2", "3"], "\(run.transcript)")
    }

    @Test func readsOutputLargerThanAPipeBufferOnBothStreams() async throws {
        // 1 MB on each stream: a runner that read one stream to its end before the other would deadlock here.
        let script = "import sys; sys.stderr.write('e' * 1_000_000); sys.stdout.write('o' * 1_000_000)"
        let run = try await ExternalProcess.run("python3", ["-c", script])
        #expect(run.status == 0, "\(run.standardError.prefix(200))")
        #expect(run.standardOutput.utf8.count == 1_000_000 && run.standardOutput.allSatisfy { $0 == "o" })
        #expect(run.standardError.utf8.count == 1_000_000 && run.standardError.allSatisfy { $0 == "e" })
    }

    @Test func aSignalEndingTheChildReadsAs128PlusItsNumber() async throws {
        // SIGKILL: a child cannot catch, block or ignore it, whatever it inherited.
        let run = try await ExternalProcess.run("sh", ["-c", "kill -KILL $$"])
        #expect(run.status == 128 + SIGKILL, "\(run.transcript)")
    }

    @Test func anAbsolutePathRunsWithoutPATHAndAMissingOneFailsToLaunch() async throws {
        #expect(try await ExternalProcess.run("/bin/sh", ["-c", "echo $0"]).standardOutput == "/bin/sh\n")
        await #expect {
            try await ExternalProcess.run("/nonexistent/tool", [])
        } throws: { error in
            guard case .launchFailed(let command, _)? = error as? ExternalProcess.Failure else { return false }
            return command == "/nonexistent/tool"
        }
        // A bare name goes through /usr/bin/env, which answers 127 as a shell does.
        #expect(try await ExternalProcess.run("livery-no-such-tool", []).status == 127)
    }

    @Test func aChildStillRunningAtTheTimeoutIsKilledAndTheRunFails() async throws {
        // The child prints its pid, then sleeps far past the timeout.
        var failure: ExternalProcess.Failure?
        do {
            _ = try await ExternalProcess.run("sh", ["-c", "echo $$; exec sleep 600"], timeout: .milliseconds(500))
        } catch {
            failure = error
        }
        guard case .timedOut(let command, let timeout, let partialOutput)? = failure else {
            Issue.record("expected timedOut, got \(String(describing: failure))")
            return
        }
        #expect(command.hasPrefix("sh -c echo $$"))
        #expect(timeout == .milliseconds(500))
        let pid = try #require(pid_t(partialOutput.trimmingCharacters(in: .whitespacesAndNewlines)), "\(partialOutput)")
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child \(pid) is gone (killed and reaped)")
        #expect("\(failure.map(String.init(describing:)) ?? "")".contains("was killed"))
    }

    /// More children than the cooperative pool has threads, meeting at a barrier: each leaves a marker, then waits
    /// (up to 10 s) for all the others' markers. Had a run held a pool thread while its child ran, at most as many
    /// children as the pool has threads could run at once, none would see every marker, and each would exit 1.
    @Test func childrenRunTogetherBeyondTheCooperativePoolsWidth() async throws {
        let scratch = try ScratchDirectory(prefix: "testsupport-barrier")
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let barrier = #"""
            touch "$1/$2"; tries=0
            while [ "$(ls "$1" | wc -l)" -lt "$3" ]; do
                tries=$((tries + 1)); [ "$tries" -gt 200 ] && exit 1; sleep 0.05
            done
            """#
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for index in 0..<count {
                group.addTask {
                    let arguments = ["-c", barrier, "sh", scratch.path, "child-\(index)", "\(count)"]
                    return try await ExternalProcess.run("sh", arguments).status
                }
            }
            return try await group.reduce(into: [Int32]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 0, count: count), "every child saw all \(count) markers")
    }
}
