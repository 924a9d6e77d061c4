import Foundation
import HTTPTestSupport
import Logging
import Synchronization
import TestSupport
import Testing

@testable import LiveryHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The cache of open descriptors behind `.immutableFile` bodies (package downloads): files stay open across
/// responses, yet a replaced or removed file is never served after the validity window, the cache stays within
/// its bound, and every descriptor is closed once neither the cache nor a send holds it.
@Suite struct OpenFileCacheTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        func advance(seconds: Double) { nanoseconds.add(UInt64(seconds * 1e9), ordering: .relaxed) }
        var read: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
    }

    /// The bytes the open file holds (read with `pread`, as `sendfile` would send them).
    static func contents(_ file: OpenFile) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(file.size))
        let count = bytes.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, 0) }
        return Array(bytes.prefix(max(0, count)))
    }

    /// Whether descriptor `fd` is open on `path` (a number reused by another test names another file).
    static func isOpen(_ fd: Int32, on path: String) -> Bool {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else {
            return false
        }
        return target == path || target == path + " (deleted)"
    }

    /// Replaces the file at `path` the way packages are written: a new file renamed over the old one.
    static func replace(_ path: String, with bytes: [UInt8]) throws {
        let temporary = path + ".tmp"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        #expect(rename(temporary, path) == 0)
    }

    @Test func servesOneDescriptorForRepeatedOpens() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let path = try scratch.write("a.zip", Array("first".utf8))
        let cache = OpenFileCache(clock: ManualClock().read)
        let first = try cache.open(path)
        let second = try cache.open(path)
        #expect(first === second, "no open, fstat or close for a file already open")
        #expect(Self.contents(second) == Array("first".utf8))
        #expect(cache.count == 1)
    }

    @Test func replacedFileIsServedFreshAfterTheValidityWindow() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let path = try scratch.write("a.zip", Array("first version".utf8))
        let clock = ManualClock()
        let cache = OpenFileCache(validity: .seconds(1), clock: clock.read)
        var old: OpenFile? = try cache.open(path)
        let oldDescriptor = try #require(old?.descriptor)
        try Self.replace(path, with: Array("second".utf8))
        clock.advance(seconds: 0.5)
        #expect(try cache.open(path) === old, "within the window the open file is trusted, as nginx does")
        clock.advance(seconds: 0.6)
        let fresh = try cache.open(path)
        #expect(fresh !== old)
        #expect(Self.contents(fresh) == Array("second".utf8))
        old = nil
        #expect(
            !Self.isOpen(oldDescriptor, on: path + ".tmp") && !Self.isOpen(oldDescriptor, on: path)
                || oldDescriptor == fresh.descriptor)
    }

    @Test func fileRewrittenInPlaceIsNoticedByItsSizeOrModificationTime() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let path = try scratch.write("a.zip", Array("abc".utf8))
        let clock = ManualClock()
        let cache = OpenFileCache(clock: clock.read)
        let old = try cache.open(path)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.write(Data("abcdef".utf8))
        try handle.close()
        clock.advance(seconds: 1.5)
        let fresh = try cache.open(path)
        #expect(fresh !== old)
        #expect(fresh.size == 6)
    }

    @Test func invalidatedPathIsReopenedAtOnce() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let path = try scratch.write("a.zip", Array("old".utf8))
        let cache = OpenFileCache(clock: ManualClock().read)
        let old = try cache.open(path)
        try Self.replace(path, with: Array("new!".utf8))
        cache.invalidate(path)
        let fresh = try cache.open(path)
        #expect(fresh !== old, "what the package cache replaces is never served stale, not even for a second")
        #expect(Self.contents(fresh) == Array("new!".utf8))
    }

    @Test func removedFileFailsOnceTheWindowHasPassed() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let path = try scratch.write("a.zip", Array("gone soon".utf8))
        let clock = ManualClock()
        let cache = OpenFileCache(clock: clock.read)
        let descriptor = try cache.open(path).descriptor
        #expect(unlink(path) == 0)
        clock.advance(seconds: 0.5)
        #expect(try cache.open(path).descriptor == descriptor, "within the window the open file is trusted")
        clock.advance(seconds: 0.6)
        #expect(throws: OpenFileCache.Failure.self) { try cache.open(path) }
        #expect(cache.count == 0)
        #expect(!Self.isOpen(descriptor, on: path), "the removed file's descriptor is closed")
    }

    @Test func staysWithinItsCapacityAndClosesWhatItEvicts() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let paths = try (0..<6).map { try scratch.write("p\($0).zip", Array("package \($0)".utf8)) }
        let cache = OpenFileCache(capacity: 3, clock: ManualClock().read)
        var descriptors: [Int32] = []
        for path in paths { descriptors.append(try cache.open(path).descriptor) }
        #expect(cache.count == 3)
        // The three least recently used were evicted and, held by no send, closed.
        for index in 0..<3 { #expect(!Self.isOpen(descriptors[index], on: paths[index]), "p\(index) closed") }
        for index in 3..<6 { #expect(Self.isOpen(descriptors[index], on: paths[index]), "p\(index) kept") }
        // A use refreshes an entry: p3 survives the next miss, p4 (now the oldest) goes.
        _ = try cache.open(paths[3])
        _ = try cache.open(paths[0])
        #expect(Self.isOpen(descriptors[3], on: paths[3]))
        #expect(!Self.isOpen(descriptors[4], on: paths[4]))
    }

    @Test func entryEvictedDuringASendIsClosedOnlyAfterTheSend() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let path = try scratch.write("a.zip", Array("in flight".utf8))
        let cache = OpenFileCache(clock: ManualClock().read)
        var sending: OpenFile? = try cache.open(path)  // what a connection's outbound queue holds
        let descriptor = try #require(sending?.descriptor)
        cache.invalidate(path)
        #expect(Self.isOpen(descriptor, on: path), "still being sent")
        #expect(sending.map(Self.contents) == Array("in flight".utf8))
        sending = nil  // the send completes
        #expect(!Self.isOpen(descriptor, on: path))
    }

    @Test func givesEveryIdleDescriptorBackWhenDescriptorsRunOut() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let paths = try (0..<4).map { try scratch.write("p\($0).zip", Array("package \($0)".utf8)) }
        let cache = OpenFileCache(clock: ManualClock().read)
        let sending = try cache.open(paths[0])
        let idle = try paths.dropFirst().map { try cache.open($0).descriptor }
        #expect(cache.removeAll() == 4)
        #expect(cache.count == 0)
        for (descriptor, path) in zip(idle, paths.dropFirst()) { #expect(!Self.isOpen(descriptor, on: path)) }
        #expect(Self.isOpen(sending.descriptor, on: paths[0]), "a file being sent stays open until its send ends")
    }

    @Test func concurrentOpensWhileEntriesAreEvictedAlwaysGetTheRightFile() throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let contents = (0..<12).map { index in (0..<(100 + index)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) } }
        let paths = try contents.enumerated().map { try scratch.write("p\($0.offset).zip", $0.element) }
        let cache = OpenFileCache(capacity: 4, validity: .milliseconds(1))
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<2_000 {
                let index = (worker &* 31 &+ round &* 7) % paths.count
                if round % 97 == 0 { cache.invalidate(paths[index]) }
                guard let file = try? cache.open(paths[index]), Self.contents(file) == contents[index] else {
                    wrong.add(1, ordering: .relaxed)
                    continue
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(cache.count <= 4)
        cache.removeAll()
        let stillOpen = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.filter { name in
            guard let fd = Int32(name) else { return false }
            return paths.contains { Self.isOpen(fd, on: $0) }
        }
        #expect(stillOpen == [], "every descriptor closed once neither the cache nor a reader holds it")
    }

    @Test func serverKeepsImmutableFileBodiesOpenAcrossResponses() async throws {
        let scratch = try ScratchDirectory(prefix: "open-files")
        let content = (0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let path = try scratch.write("package.zip", content)
        let openFiles = OpenFileCache()
        let routes: (Router) -> Void = { router in
            router.on(
                .get, "/package",
                .sync { _ in
                    HTTPResponse(body: .immutableFile(path: path, offset: 0, length: UInt64(content.count)))
                })
            router.on(
                .get, "/part",
                .sync { _ in
                    HTTPResponse(status: .partialContent, body: .immutableFile(path: path, offset: 100, length: 50))
                })
            router.on(
                .get, "/too-long",
                .sync { _ in
                    HTTPResponse(body: .immutableFile(path: path, offset: 0, length: UInt64(content.count + 1)))
                })
            router.on(
                .get, "/missing",
                .sync { _ in
                    HTTPResponse(body: .immutableFile(path: path + ".gone", offset: 0, length: 1))
                })
        }
        try await withTestServer(configure: { $0.openFiles = openFiles }, routes: routes) { server in
            try await blocking {
                let client = try server.client()
                let first = try openFiles.open(path)
                for _ in 0..<5 { #expect(try client.get("/package").body == content) }
                #expect(try client.get("/part").body == Array(content[100..<150]))
                #expect(try openFiles.open(path) === first, "every download used the one open descriptor")
                #expect(try client.get("/too-long").status == 500)
                #expect(try client.get("/missing").status == 500)
                #expect(try client.get("/package").body == content, "the server still serves it")
            }
        }
    }
}

/// What a connection keeps between reads: only the unconsumed bytes, in storage sized to them.
@Suite struct ConnectionBufferTests {
    @Test func consumedInputLeavesNoBuffer() {
        var input = [UInt8](repeating: 0x41, count: 40_000)
        input.reserveCapacity(64 << 10)
        let kept = HTTPConnectionStateMachine.unconsumed(input, after: input.count)
        #expect(kept.isEmpty)
        #expect(kept.capacity == 0, "an idle connection holds no read buffer")
    }

    @Test func remainderOfALargeBurstIsKeptInAStorageSizedToIt() {
        var input = [UInt8](repeating: 0x41, count: 60_000)
        input.append(contentsOf: Array("GET /next HT".utf8))
        let kept = HTTPConnectionStateMachine.unconsumed(input, after: 60_000)
        #expect(kept == Array("GET /next HT".utf8))
        #expect(kept.capacity < 1024, "not the 60 KB the burst needed: capacity \(kept.capacity)")
    }

    @Test func untouchedInputIsKeptAsIs() {
        let input = Array("GET / HTTP/1.1\r\nHo".utf8)
        #expect(HTTPConnectionStateMachine.unconsumed(input, after: 0) == input)
    }
}
