import Foundation
import Synchronization
import SystemCalls
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The rules every caller of the system-call layer relies on.
@Suite struct SystemCallsTests {
    // MARK: EINTR

    @Test func aReadInterruptedByASignalIsRetriedAndReturnsTheBytes() async throws {
        let outcome = try await blocking { try InterruptedRead.run() }
        #expect(outcome.signalsHandled >= 1, "the signal must land while the reader is blocked in read(2)")
        #expect(outcome.reenteredRead, "after the interruption the reader must be back in read(2), not returned")
        #expect(outcome.result == .processed(3))
        #expect(outcome.bytes == Array("abc".utf8))
    }

    // MARK: EAGAIN

    @Test func anEmptyNonBlockingSocketIsWouldBlockNotAnError() throws {
        let (left, right) = try SocketPair.make()
        defer { Syscall.close(left); Syscall.close(right) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let empty = try buffer.withUnsafeMutableBytes { buffer throws(SystemCallError) in
            try Syscall.receive(left, into: buffer)
        }
        #expect(empty == .wouldBlock)

        let sent = try Array("hi".utf8).withUnsafeBytes { bytes throws(SystemCallError) in
            try Syscall.send(right, bytes)
        }
        #expect(sent == .processed(2))
        let received = try buffer.withUnsafeMutableBytes { buffer throws(SystemCallError) in
            try Syscall.receive(left, into: buffer)
        }
        #expect(received == .processed(2))
    }

    @Test func aFullNonBlockingSocketIsWouldBlockNotAnError() throws {
        let (left, right) = try SocketPair.make()
        defer { Syscall.close(left); Syscall.close(right) }
        let chunk = [UInt8](repeating: 7, count: 64 * 1024)
        var outcome = IOResult<Int>.processed(0)
        // The peer never reads: the kernel's buffers fill after at most a few MiB.
        for _ in 0..<4096 {
            outcome = try chunk.withUnsafeBytes { bytes throws(SystemCallError) in try Syscall.send(right, bytes) }
            if outcome == .wouldBlock { break }
        }
        #expect(outcome == .wouldBlock)
    }

    // MARK: O_NOFOLLOW beneath a trusted root

    @Test func aPlainPathBeneathTheRootOpensAndReads() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("skin/a/b/file.txt", Array("inside".utf8))
        let file = try SystemFile.openBeneath("a/b/file.txt", in: scratch.path("skin"))
        #expect(try file.readAll() == Array("inside".utf8))
        #expect(file.path == scratch.path("skin/a/b/file.txt"))
    }

    @Test(arguments: ["a", "a/b", "a/b/file.txt"])
    func aSymbolicLinkInAnyComponentIsRefusedNamingThePath(linked component: String) throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("skin/a/b/file.txt", Array("inside".utf8))
        _ = try scratch.write("outside/a/b/file.txt", Array("SECRET".utf8))
        let root = scratch.path("skin")
        try FileManager.default.removeItem(atPath: root + "/" + component)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/" + component, withDestinationPath: scratch.path("outside/" + component))

        let error = #expect(throws: SystemCallError.self) { _ = try SystemFile.openBeneath("a/b/file.txt", in: root) }
        #expect(error?.errno == ELOOP || error?.errno == ENOTDIR, "\(String(describing: error))")
        #expect(error?.path == root + "/" + component)
        #expect(error?.description.contains(root + "/" + component) == true)
    }

    @Test(arguments: ["../outside/file.txt", "a/../../outside/file.txt", "./a", "a//b", "", "/etc/passwd"])
    func componentsThatLeaveOrBlurThePathAreRefused(path: String) throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("skin/a/b", Array("x".utf8))
        _ = try scratch.write("outside/file.txt", Array("SECRET".utf8))
        let error = #expect(throws: SystemCallError.self) {
            _ = try SystemFile.openBeneath(path, in: scratch.path("skin"))
        }
        #expect(error?.errno == EINVAL)
    }

    @Test func theRootItselfMayBeASymbolicLink() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("real/file.txt", Array("ok".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("link"), withDestinationPath: scratch.path("real"))
        let file = try SystemFile.openBeneath("file.txt", in: scratch.path("link"))
        #expect(try file.readAll() == Array("ok".utf8))
    }

    // MARK: A held file

    @Test func aHeldFileIsLinkedUntilItsNameIsRemovedOrReplaced() throws {
        let scratch = try ScratchDirectory()
        let removed = HeldFile(try SystemFile.openForReading(try scratch.write("removed.zip", Array("a".utf8))))
        let replaced = HeldFile(try SystemFile.openForReading(try scratch.write("replaced.zip", Array("b".utf8))))
        let kept = HeldFile(try SystemFile.openForReading(try scratch.write("kept.zip", Array("c".utf8))))
        #expect(removed.isLinked && replaced.isLinked && kept.isLinked)

        try SystemPath.removeIfPresent(scratch.path("removed.zip"))
        // The same bytes renamed over the name: another file, so the held one has no name left.
        try SystemPath.rename(try scratch.write("new.zip", Array("b".utf8)), to: scratch.path("replaced.zip"))
        #expect(!removed.isLinked, "unlinked")
        #expect(!replaced.isLinked, "replaced by a rename")
        #expect(kept.isLinked)
    }

    // MARK: The crash-safe write

    @Test func aDurableReplaceWritesTheNewContentWithItsModeAndLeavesNoTemporaryFile() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.write("state.json", Array("old".utf8))
        try DurableFile.replace(path, with: Array("new".utf8), mode: 0o600)
        #expect(try scratch.read("state.json") == Array("new".utf8))
        #expect(try SystemPath.linkStatus(path).st_mode & 0o777 == 0o600)
        #expect(try scratch.listing() == ["state.json"])
    }

    @Test func aWriteThatFailsHalfwayLeavesTheOldContentAndNoTemporaryFile() throws {
        struct Interrupted: Error {}
        let scratch = try ScratchDirectory()
        let path = try scratch.write("state.json", Array("old content".utf8))
        #expect(throws: Interrupted.self) {
            try DurableFile.replace(path, mapError: { _ in Interrupted() }) { file throws(Interrupted) in
                do { try file.writeAll(Array("half of the new".utf8)) } catch { throw Interrupted() }
                throw Interrupted()
            }
        }
        #expect(try scratch.read("state.json") == Array("old content".utf8))
        #expect(try scratch.listing() == ["state.json"])
    }

    @Test func aWriteThatCannotStartLeavesTheOldContentAndNamesTheFolder() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.write("state.json", Array("old".utf8))
        let missing = scratch.path("gone/state.json")
        let error = #expect(throws: SystemCallError.self) { try DurableFile.replace(missing, with: Array("new".utf8)) }
        #expect(error?.errno == ENOENT)
        #expect(error?.path?.hasPrefix(scratch.path("gone/")) == true)
        #expect(try SystemFile.open(path, O_RDONLY).readAll() == Array("old".utf8))
    }

    @Test func aDurableCreateNeverReplacesAnExistingFileOrLink() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.write("key.pem", Array("first".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("dangling"), withDestinationPath: scratch.path("nowhere"))
        for target in [path, scratch.path("dangling")] {
            let error = #expect(throws: SystemCallError.self) {
                try DurableFile.create(target, with: Array("second".utf8), mode: 0o600)
            }
            #expect(error?.errno == EEXIST)
        }
        #expect(try scratch.read("key.pem") == Array("first".utf8))
        try DurableFile.create(scratch.path("new.pem"), with: Array("fresh".utf8), mode: 0o600)
        #expect(try scratch.read("new.pem") == Array("fresh".utf8))
        #expect(try scratch.listing().sorted() == ["dangling", "key.pem", "new.pem"])
    }

    // MARK: Errors

    @Test func anErrorNamesTheOperationThePathAndTheErrno() throws {
        let scratch = try ScratchDirectory()
        let missing = scratch.path("missing.txt")
        let error = #expect(throws: SystemCallError.self) { _ = try SystemFile.open(missing, O_RDONLY) }
        #expect(error == SystemCallError("open", path: missing, errno: ENOENT))
        #expect(error?.description == "open \(missing): No such file or directory (errno 2)")
    }

    // MARK: EBADF

    @Test(arguments: ["close", "receive"])
    func aCallOnAClosedDescriptorStopsTheProcess(call: String) async throws {
        let probe = try BuiltProduct.path("syscalls-probe")
        let output = try await ExternalProcess.run(probe, ["ebadf-" + call])
        #expect(output.status > 128, "killed by a signal: \(output.transcript)")
        #expect(output.standardError.contains("invalid descriptor"), "\(output.transcript)")
        let control = try await ExternalProcess.run(probe, ["valid"])
        #expect(control.status == 0, "\(control.transcript)")
    }
}

/// A connected pair of non-blocking Unix stream sockets.
enum SocketPair {
    static func make() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw SystemCallError("socketpair", errno: errno) }
        return (fds[0], fds[1])
    }
}

/// Signals handled by ``InterruptedRead``'s handler (async-signal-safe: one atomic add).
private let handledSignals = Atomic<Int>(0)

/// A blocking `read` on a pipe, interrupted by `SIGUSR1` installed without `SA_RESTART` (so the kernel returns
/// `EINTR` instead of restarting the call), observed through `/proc/self/task/<tid>/syscall`.
private enum InterruptedRead {
    struct Outcome: Sendable {
        var signalsHandled: Int
        var reenteredRead: Bool
        var result: IOResult<Int>?
        var bytes: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Thread identity and outcome of the reader.
    private final class Reader: @unchecked Sendable {
        // Written by the reader thread before `started` is signalled / after `finished`; read after waiting.
        var tid = ""
        var thread = pthread_self()
        var result: Result<IOResult<Int>, SystemCallError>?
        var bytes: [UInt8] = []
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let done = Atomic<Bool>(false)
    }

    static func run() throws -> Outcome {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        defer { close(fds[0]); close(fds[1]) }

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in handledSignals.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: read(2) fails with EINTR
        var previous = sigaction()
        guard sigaction(SIGUSR1, &action, &previous) == 0 else {
            throw Failure(description: "sigaction: errno \(errno)")
        }
        defer { sigaction(SIGUSR1, &previous, nil) }
        let before = handledSignals.load(ordering: .relaxed)

        let reader = Reader()
        let readFD = fds[0]
        Thread {
            // Threads may start with signals blocked (Dispatch's do); this one must receive SIGUSR1.
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            reader.tid =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
                .map { String($0.split(separator: "/").last ?? "") } ?? ""
            reader.thread = pthread_self()
            reader.started.signal()
            var buffer = [UInt8](repeating: 0, count: 16)
            let result = buffer.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try Syscall.read(readFD, into: buffer) }
            }
            if case .success(.processed(let count)) = result { reader.bytes = Array(buffer[0..<count]) }
            reader.result = result
            reader.done.store(true, ordering: .releasing)
            reader.finished.signal()
        }.start()
        reader.started.wait()
        guard !reader.tid.isEmpty else { throw Failure(description: "no /proc/thread-self") }

        try waitUntil("the reader blocks in read(2)") { isInRead(reader.tid) }
        pthread_kill(reader.thread, SIGUSR1)
        try waitUntil("the signal is handled") { handledSignals.load(ordering: .relaxed) > before }
        // While the handler runs the thread is not in a system call; once it shows read(2) again the call was
        // retried (without the retry, read(2) returned EINTR and the reader finished instead).
        try waitUntil("the reader re-enters read(2) or returns") {
            isInRead(reader.tid) || reader.done.load(ordering: .acquiring)
        }
        let reentered = !reader.done.load(ordering: .acquiring)
        _ = Array("abc".utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        guard reader.finished.wait(timeout: .now() + 10) == .success else {
            throw Failure(description: "the reader never returned")
        }
        return Outcome(
            signalsHandled: handledSignals.load(ordering: .relaxed) - before, reenteredRead: reentered,
            result: try? reader.result?.get(), bytes: reader.bytes)
    }

    /// Whether thread `tid` of this process is blocked in `read(2)` (the first field of its `syscall` file).
    private static func isInRead(_ tid: String) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/syscall", encoding: .utf8) else {
            return false
        }
        #if arch(x86_64)
            let readNumber = "0"
        #else
            let readNumber = "63"  // arm64's generic system-call table
        #endif
        return text.split(separator: " ").first.map(String.init) == readNumber
    }

    /// Polls `condition` every millisecond for up to 10 s.
    private static func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw Failure(description: "timed out waiting until \(what)") }
            usleep(1000)
        }
    }
}
