import Foundation
import SystemCalls
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The calls about the process, names and the clock that the server makes only through SystemCalls.
@Suite struct ProcessAndClockTests {
    // MARK: Wall clock

    @Test func utcStampsWriteEveryFieldWithItsLeadingZeros() {
        var stamp: [UInt8] = []
        WallClock.appendUTCStamp(1_000_000_000, zone: false, to: &stamp)
        #expect(String(decoding: stamp, as: UTF8.self) == "2001-09-09T01:46:40")

        stamp = []
        WallClock.appendUTCStamp(1_704_067_205, milliseconds: 7, zone: true, to: &stamp)
        #expect(String(decoding: stamp, as: UTF8.self) == "2024-01-01T00:00:05.007Z")
    }

    @Test func calendarPartsOfAnInstantAreUTCWithSundayAsZero() {
        // 6 November 1994 08:49:37 GMT, RFC 9110's example date: a Sunday.
        let parts = WallClock.utcParts(784_111_777)
        #expect(parts == CalendarParts(year: 1994, month: 11, day: 6, hour: 8, minute: 49, second: 37, weekday: 0))
    }

    @Test func theWallClockAgreesWithFoundation() {
        let before = Date().timeIntervalSince1970
        let now = WallClock.now()
        let after = Date().timeIntervalSince1970
        let seconds = Double(now.seconds) + Double(now.nanoseconds) / 1e9
        #expect(seconds >= before.rounded(.down) && seconds <= after + 1)
        #expect((0..<1_000_000_000).contains(now.nanoseconds))
    }

    // MARK: Names

    @Test func aNumericLoopbackAddressResolvesToItself() throws {
        let addresses = try Syscall.resolve(host: "127.0.0.1", port: 8080, passive: false)
        #expect(addresses.count == 1)
        #expect(addresses.first?.family == AF_INET)
    }

    @Test func anEmptyPassiveHostMeansEveryLocalAddress() throws {
        let addresses = try Syscall.resolve(host: "", port: 0, passive: true)
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0.family == AF_INET || $0.family == AF_INET6 })
    }

    @Test func aNameThatDoesNotResolveNamesGetaddrinfoAndItsReason() {
        #expect {
            _ = try Syscall.resolve(host: "no-such-host.invalid", port: 80, passive: false)
        } throws: { error in
            guard let error = error as? SystemCallError else { return false }
            return error.operation == "getaddrinfo" && error.path == "no-such-host.invalid" && !error.reason.isEmpty
        }
    }

    // MARK: The process

    @Test func theEnvironmentIsReadAndAnUnsetVariableIsNil() {
        #expect(Syscall.environmentValue("PATH") == ProcessInfo.processInfo.environment["PATH"])
        #expect(Syscall.environmentValue("LIVERY_SURELY_UNSET_\(Syscall.processID)") == nil)
    }

    @Test func theOpenFileLimitCanBeSetToWhatItIs() throws {
        let limit = try #require(Syscall.openFileLimit())
        #expect(limit.soft <= limit.hard)
        try Syscall.setOpenFileLimit(soft: limit.soft, hard: limit.hard)
        #expect(Syscall.openFileLimit()?.soft == limit.soft)
    }

    @Test func theProcessIDIsFoundations() {
        #expect(Syscall.processID == ProcessInfo.processInfo.processIdentifier)
    }

    @Test func aDescriptorIsOpenUntilClosed() throws {
        let file = try SystemFile.open("/dev/null", O_RDONLY)
        #expect(Syscall.isOpen(file.descriptor))
        #expect(!Syscall.isOpen(-1))
    }

    // MARK: Paths

    @Test func accessChecksNameTheCallAndThePath() throws {
        let folder = try ScratchDirectory(prefix: "syscalls-access")
        #expect(SystemPath.exists(folder.path))
        #expect(!SystemPath.exists(folder.path + "/missing"))
        try SystemPath.checkAccess(folder.path, R_OK | W_OK | X_OK)
        #expect {
            try SystemPath.checkAccess(folder.path + "/missing", R_OK)
        } throws: { error in
            (error as? SystemCallError).map { $0.operation == "access" && $0.errno == ENOENT } ?? false
        }
        let space = try SystemPath.fileSystem(of: folder.path)
        #expect(!space.readOnly)
        #expect(space.blocksAvailable > 0)
    }

    @Test func removeSaysWhetherItRemovedAFile() throws {
        let folder = try ScratchDirectory(prefix: "syscalls-remove")
        let path = folder.path + "/file"
        try DurableFile.create(path, with: [1, 2, 3], mode: 0o600)
        #expect(SystemPath.remove(path))
        #expect(!SystemPath.remove(path))
    }

    // MARK: Wake-up pipe

    @Test func aWakeMakesThePipeReadableAndNeverBlocksWhenFull() throws {
        let pipe = try WakePipe()
        var descriptors = [pollfd(fd: pipe.reader, events: Int16(POLLIN), revents: 0)]
        #expect(try Syscall.poll(&descriptors, timeoutMilliseconds: 0) == 0)
        // Far more wakes than a pipe holds: the write end is non-blocking, so none of them waits.
        for _ in 0..<100_000 { pipe.wake() }
        #expect(try Syscall.poll(&descriptors, timeoutMilliseconds: 0) == 1)
    }
}
