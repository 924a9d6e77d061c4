import Foundation
import HTTPTestSupport
import LiveryCrypto
import Logging
import SkinModel
import Synchronization
import TestSupport
import Testing

@testable import LiveryHTTP
@testable import LiveryServer

@Suite(.serialized) struct ClientAPIServerTests {
    @Test func pollThenDownloadGivesTheAdvertisedBytes() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let answer = try await harness.poll()
        let sign = try #require(answer["skinSign"] as? String)
        #expect(sign.count == 32)
        #expect(answer["skinId"] as? String == "christmas-2026")
        let url = try #require(answer["packageUrl"] as? String)
        let download = try await harness.get(url)
        #expect(download.status == 200)
        #expect(download.header("Content-Type") == "application/zip")
        #expect(download.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(download.body.count == answer["size"] as? Int)
        #expect(SHA256.hexHash(download.body) == answer["sha256"] as? String)
        #expect(download.header("ETag") == "\"\(SHA256.hexHash(download.body))\"")
        await harness.stop()
    }

    @Test func matchingIfNoneMatchGets304WithoutBody() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let first = try await harness.get(LiveryHarness.poll)
        let etag = try #require(first.header("ETag"))
        let second = try await harness.get(LiveryHarness.poll, headers: "If-None-Match: \(etag)\r\n")
        #expect(second.status == 304 && second.body.isEmpty)
        #expect(second.header("ETag") == etag)
        let other = try await harness.get(LiveryHarness.poll, headers: "If-None-Match: \"stale\"\r\n")
        #expect(other.status == 200)
        await harness.stop()
    }

    @Test func cacheLifetimeNeverReachesPastTheNextBoundary() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let first = try await harness.get(LiveryHarness.poll)
        #expect(first.header("Cache-Control") == "public, max-age=60")
        // The answer depends on the URL alone (path and query, which every cache keys on) and is never
        // content-encoded, so no request header may select it: no Vary.
        #expect(first.header("Vary") == nil)
        let sameURLOtherHeaders = try await harness.get(
            LiveryHarness.poll,
            headers: "Accept-Encoding: gzip\r\nUser-Agent: other-app/1.0\r\nAccept-Language: zh-CN\r\n")
        #expect(sameURLOtherHeaders.body == first.body && sameURLOtherHeaders.header("ETag") == first.header("ETag"))
        harness.clock.set(LiveryHarness.end.addingTimeInterval(-10))
        #expect(try await harness.get(LiveryHarness.poll).header("Cache-Control") == "public, max-age=10")
        harness.clock.set(LiveryHarness.start.addingTimeInterval(-25))
        let before = try await harness.get(LiveryHarness.poll)
        #expect(before.header("Cache-Control") == "public, max-age=25")
        #expect(before.text.hasPrefix(#"{"skinSign":"""#), "no skin before the window, with next")
        harness.clock.set(LiveryHarness.end)
        let after = try await harness.get(LiveryHarness.poll)
        #expect(after.text == #"{"skinSign":""}"#)
        #expect(after.header("Cache-Control") == "public, max-age=60")
        await harness.stop()
    }

    @Test func nextAnnouncesTheUpcomingSkin() async throws {
        let harness = try await LiveryHarness(
            samples: ["christmas-2026"], at: LiveryHarness.start.addingTimeInterval(-3600), transport: .socket)
        defer { harness.removeFiles() }
        let answer = try await harness.poll()
        #expect(answer["skinSign"] as? String == "")
        let next = try #require(answer["next"] as? [String: Any])
        #expect(next["skinId"] as? String == "christmas-2026")
        #expect(next["startsAt"] as? String == "2027-01-15T08:00:00Z")
        await harness.stop()
    }

    @Test func badParametersAreNamed() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let response = try await harness.get("/api/v1/skin?app=demo&platform=symbian&appVersion=7")
        #expect(response.status == 400)
        let body = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let error = try #require(body["error"] as? [String: Any])
        #expect((error["details"] as? [String: Any])?["parameter"] as? String == "platform")
        await harness.stop()
    }

    @Test(arguments: [
        "deviceId=%zz", "deviceId=%4", "deviceId=a%", "deviceId=<script>", "deviceId=a|b", "deviceId={x}", "sign=%G1"
    ])
    func aPollWhoseQueryHasABadEscapeOrAForbiddenCharacterIs400LikeSuchAPath(bad: String) async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let poll = try await harness.get("/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&\(bad)")
        let path = try await harness.get("/api/v1/skin/\(bad)")
        #expect(poll.status == 400, "\(poll.text)")
        #expect(path.status == 400, "\(path.text)")
        #expect(poll.text.contains("invalid_target") && path.text.contains("invalid_target"))
        await harness.stop()
    }

    @Test func rangesResumeDownloads() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let answer = try await harness.poll()
        let url = try #require(answer["packageUrl"] as? String)
        let size = try #require(answer["size"] as? Int)
        let full = try await harness.get(url)
        let etag = try #require(full.header("ETag"))
        #expect(full.header("Accept-Ranges") == "bytes")

        let part = try await harness.get(url, headers: "Range: bytes=10-19\r\n")
        #expect(part.status == 206)
        #expect(part.header("Content-Range") == "bytes 10-19/\(size)")
        #expect(part.body == Array(full.body[10...19]))

        let tail = try await harness.get(url, headers: "Range: bytes=-7\r\n")
        #expect(tail.status == 206 && tail.body == Array(full.body.suffix(7)))

        let beyond = try await harness.get(url, headers: "Range: bytes=\(size)-\r\n")
        #expect(beyond.status == 416)
        #expect(beyond.header("Content-Range") == "bytes */\(size)")

        let sameTag = try await harness.get(url, headers: "Range: bytes=0-4\r\nIf-Range: \(etag)\r\n")
        #expect(sameTag.status == 206 && sameTag.body.count == 5)
        let otherTag = try await harness.get(url, headers: "Range: bytes=0-4\r\nIf-Range: \"changed\"\r\n")
        #expect(otherTag.status == 200 && otherTag.body == full.body)

        let several = try await harness.get(url, headers: "Range: bytes=0-1,5-6\r\n")
        #expect(several.status == 200 && several.body.count == size)
        await harness.stop()
    }

    /// Over a socket a download is answered from where it was received (the route's view path), in memory from a
    /// request value (the handler): for every condition a client may send, both give the same answer.
    @Test func aDownloadReadInPlaceIsAnsweredAsTheHandlerAnswersIt() async throws {
        let socket = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        let memory = try await LiveryHarness(samples: ["christmas-2026"])
        defer {
            socket.removeFiles()
            memory.removeFiles()
        }
        let url = try #require(try await socket.poll()["packageUrl"] as? String)
        #expect(try await memory.poll()["packageUrl"] as? String == url)
        let etag = try #require(try await socket.get(url).header("ETag"))
        let conditions = [
            "", "If-None-Match: \(etag)\r\n", "if-none-match: \"stale\", \(etag)\r\n", "If-None-Match: \"stale\"\r\n",
            "Range: bytes=10-19\r\n", "range: bytes=-7\r\n", "Range: bytes=999999999-\r\n",
            "Range: bytes=0-4\r\nIf-Range: \(etag)\r\n", "Range: bytes=0-4\r\nIF-RANGE: \"changed\"\r\n",
            "Range: bytes=0-1,5-6\r\n", "X-Other: 1\r\nRange:   bytes=2-3  \r\n"
        ]
        for condition in conditions {
            for head in [false, true] {
                let read = try await socket.get(url, headers: condition, head: head)
                let handled = try await memory.get(url, headers: condition, head: head)
                #expect(read.status == handled.status, "\(condition)")
                for field in ["ETag", "Content-Range", "Content-Type", "Cache-Control", "Accept-Ranges"] {
                    #expect(read.header(field) == handled.header(field), "\(field) for \(condition)")
                }
                if !head {
                    // Compared by digest, so a failure names the condition without printing the package.
                    #expect(SHA256.hexHash(read.body) == SHA256.hexHash(handled.body), "\(condition)")
                }
            }
        }
        await socket.stop()
        await memory.stop()
    }

    @Test func headHasTheHeadersOfGetAndNoBody() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let url = try #require(try await harness.poll()["packageUrl"] as? String)
        let get = try await harness.get(url)
        let head = try await harness.get(url, head: true)
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == get.header("Content-Length"))
        #expect(head.header("ETag") == get.header("ETag"))
        await harness.stop()
    }

    @Test func unknownPackagesAre404JSON() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        for target in [
            "/api/v1/packages/\(String(repeating: "a", count: 32)).zip", "/api/v1/packages/..%2Fetc.zip",
            "/api/v1/packages/short.zip", "/api/v1/packages/\(String(repeating: "A", count: 32)).zip"
        ] {
            let response = try await harness.get(target)
            #expect(response.status == 404, "\(target)")
            #expect(response.text.contains("package_not_found"))
        }
        await harness.stop()
    }

    @Test func concurrentColdRequestsBuildOnce() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let answer = try await harness.poll()
        let url = try #require(answer["packageUrl"] as? String)
        let sign = try #require(answer["skinSign"] as? String)
        let cache = harness.service.client.cache
        try FileManager.default.removeItem(atPath: cache.path(for: sign))
        let before = await cache.buildCount
        let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<12 {
                group.addTask {
                    let r = try await harness.get(url); return (r.status, r.body.count)
                }
            }
            var all: [(Int, Int)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(statuses.allSatisfy { $0.0 == 200 && $0.1 == answer["size"] as? Int })
        #expect(await cache.buildCount == before + 1)
        await harness.stop()
    }

    @Test func builtPackagesAreServedOnTheEventLoopAndMissingOnesRebuilt() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let answer = try await harness.poll()
        let url = try #require(answer["packageUrl"] as? String)
        let sign = try #require(answer["skinSign"] as? String)
        let client = harness.service.client
        func request(_ file: String) -> HTTPRequest { Self.packageRequest(file) }
        // Loading the catalog built every package, so the fast path has it.
        #expect(client.packageIfReady(request(sign + ".zip"))?.status == .ok)
        // Names that cannot be packages are answered at once; unknown signs go to the slow path, which says 404.
        #expect(client.packageIfReady(request("short.zip"))?.status == .notFound)
        #expect(client.packageIfReady(request(String(repeating: "b", count: 32) + ".zip")) == nil)
        // A package file removed from the cache is not served from memory: the slow path rebuilds it.
        try FileManager.default.removeItem(atPath: client.cache.path(for: sign))
        #expect(client.packageIfReady(request(sign + ".zip")) == nil)
        let before = await client.cache.buildCount
        let download = try await harness.get(url)
        #expect(download.status == 200 && SHA256.hexHash(download.body) == answer["sha256"] as? String)
        #expect(await client.cache.buildCount == before + 1)
        #expect(client.packageIfReady(request(sign + ".zip"))?.status == .ok)
        await harness.stop()
    }

    /// Issue 13 point 9: a download of a built package sends header fields encoded once for that package (as poll
    /// answers do), not built, checked and encoded again for every download; the fields themselves are unchanged.
    @Test func downloadsOfABuiltPackageReuseHeaderFieldsEncodedOnce() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { harness.removeFiles() }
        let answer = try await harness.poll()
        let sign = try #require(answer["skinSign"] as? String)
        let sha256 = try #require(answer["sha256"] as? String)
        let client = harness.service.client
        func download(_ headers: HTTPHeaders = [:]) throws -> HTTPResponse {
            try #require(client.packageIfReady(Self.packageRequest(sign + ".zip", headers: headers)))
        }
        for _ in 0..<2 {
            let full = try download()
            #expect(full.status == .ok)
            #expect(full.headers.wire != nil, "encoded once, copied as bytes")
            #expect(Array(full.headers.map(\.name)) == ["ETag", "Cache-Control", "Content-Type", "Accept-Ranges"])
            #expect(full.headers["ETag"] == "\"\(sha256)\"")
            #expect(full.headers["Cache-Control"] == "public, max-age=31536000, immutable")
            #expect(full.headers["Content-Type"] == "application/zip")
        }
        let unchanged = try download(["If-None-Match": "\"\(sha256)\""])
        #expect(unchanged.status == .notModified)
        #expect(unchanged.headers.wire != nil)
        #expect(Array(unchanged.headers.map(\.name)) == ["ETag", "Cache-Control"])
        let part = try download(["Range": "bytes=0-9"])
        #expect(part.status == .partialContent && part.headers["Content-Range"]?.hasPrefix("bytes 0-9/") == true)
        await harness.stop()
    }

    /// Issue 13 point 9: a small package is downloaded from memory (head and content in one `send`), with exactly
    /// the bytes its record describes; a removed file still sends the download to the slow path at once, and
    /// packages over the limit or the budget are sent from their files.
    @Test func smallPackagesAreSentFromMemoryWithTheirRecordedBytes() async throws {
        let (harness, answer, sign) = try await Self.inMemoryStage()
        defer { harness.removeFiles() }
        let client = harness.service.client
        let request = Self.packageRequest(sign + ".zip")
        let response = try #require(client.packageIfReady(request))
        guard case .bytes(let bytes) = response.body else {
            Issue.record("sent from the file: \(response.body)")
            return
        }
        #expect(SHA256.hexHash(bytes) == answer["sha256"] as? String && bytes.count == answer["size"] as? Int)
        let download = try await harness.get(try #require(answer["packageUrl"] as? String))
        #expect(download.status == 200 && download.body == bytes)
        #expect(download.header("Content-Length") == "\(bytes.count)")
        let head = try await harness.get(try #require(answer["packageUrl"] as? String), head: true)
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == "\(bytes.count)")

        try FileManager.default.removeItem(atPath: client.cache.path(for: sign))
        #expect(client.packageIfReady(request) == nil, "a removed file is noticed at once, kept bytes or not")
        await harness.stop()

        for configure in [
            { (c: inout LiveryService.Configuration) in c.client.inMemoryPackageLimit = 0 },
            { (c: inout LiveryService.Configuration) in c.client.inMemoryPackageBudget = 0 }
        ] {
            let other = try await LiveryHarness(samples: ["christmas-2026"], configure: configure)
            defer { other.removeFiles() }
            let body = try #require(other.service.client.packageIfReady(request)).body
            #expect(
                body
                    == .immutableFile(
                        path: other.service.client.cache.path(for: sign), offset: 0, length: UInt64(bytes.count)))
            await other.stop()
        }
    }

    /// Issue 23: a package sent from memory checks that its file is still in place with one `fstat` of the
    /// descriptor kept from reading it, not a path walk. A file replaced under its name (here by the same bytes) is
    /// noticed at once like a removed one, and the download that follows holds the new file.
    @Test func aPackageFileReplacedUnderItsNameIsNoticedAtOnceAndHeldAnew() async throws {
        let (harness, answer, sign) = try await Self.inMemoryStage()
        defer { harness.removeFiles() }
        let client = harness.service.client
        let request = Self.packageRequest(sign + ".zip")
        #expect(client.packageIfReady(request)?.status == .ok)

        let path = client.cache.path(for: sign)
        try FileManager.default.copyItem(atPath: path, toPath: path + ".copy")
        #expect(rename(path + ".copy", path) == 0)
        #expect(client.packageIfReady(request) == nil, "the file read into memory has no name left")

        let download = try await harness.get(try #require(answer["packageUrl"] as? String))
        #expect(download.status == 200 && SHA256.hexHash(download.body) == answer["sha256"] as? String)
        let again = try #require(client.packageIfReady(request), "the new file is held: served on the event loop")
        guard case .bytes(let bytes) = again.body else {
            Issue.record("sent from the file: \(again.body)")
            return
        }
        #expect(bytes == download.body)
        await harness.stop()
    }

    /// Issue 23: a download on an event loop is answered from that loop's replica of the prepared package, made on
    /// its first download there: header fields and entity tag of its own (no other loop retains them), the content
    /// bytes and the held file shared (one copy in memory). A change of the shared packages (a file replaced and
    /// held anew) reaches every loop at its next download.
    @Test func eachEventLoopAnswersFromItsOwnReplicaOfAPreparedPackage() async throws {
        let (harness, answer, sign) = try await Self.inMemoryStage()
        defer { harness.removeFiles() }
        let client = harness.service.client
        func download(on loop: Int?) -> HTTPResponse? {
            var request = Self.packageRequest(sign + ".zip")
            request.eventLoopIndex = loop
            return client.packageIfReady(request)
        }
        func address<T>(_ array: [T]?) -> UnsafeRawPointer? {
            array?.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        func content(_ response: HTTPResponse?) -> [UInt8]? {
            if case .bytes(let bytes)? = response?.body { return bytes }
            return nil
        }
        let shared = try #require(download(on: nil))
        let first = try #require(download(on: 0))
        let again = try #require(download(on: 0))
        let other = try #require(download(on: 1))
        for response in [first, again, other] {
            #expect(response.status == .ok && response.headers == shared.headers)
            #expect(content(response) == content(shared))
        }
        #expect(address(first.headers.wire) == address(again.headers.wire), "one replica per loop")
        #expect(address(first.headers.wire) != address(other.headers.wire), "each loop its own header fields")
        #expect(address(first.headers.wire) != address(shared.headers.wire))
        #expect(address(content(first)) == address(content(other)), "the bytes are kept once")

        let path = client.cache.path(for: sign)
        try FileManager.default.copyItem(atPath: path, toPath: path + ".copy")
        #expect(rename(path + ".copy", path) == 0)
        #expect(download(on: 0) == nil && download(on: 1) == nil, "the replicas' held file has no name left")
        let fetched = try await harness.get(try #require(answer["packageUrl"] as? String))
        #expect(fetched.status == 200)
        for loop in [0, 1] {
            let response = try #require(download(on: loop), "loop \(loop) serves the file held anew")
            #expect(content(response) == fetched.body)
        }
        await harness.stop()
    }

    /// Issue 13 point 9: bytes are kept in memory only when they are the recorded ones; a package file damaged
    /// before its first download is never held (nor sent) from memory.
    @Test func aPackageFileThatDiffersFromItsRecordIsNotKeptInMemory() async throws {
        let harness = try await LiveryHarness(samples: ["christmas-2026"]) { $0.client.inMemoryPackageLimit = 16 << 20 }
        defer { harness.removeFiles() }
        let answer = try await harness.poll()
        let sign = try #require(answer["skinSign"] as? String)
        let client = harness.service.client
        let path = client.cache.path(for: sign)
        var damaged = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        damaged[damaged.count / 2] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let response = try #require(client.packageIfReady(Self.packageRequest(sign + ".zip")))
        if case .bytes = response.body { Issue.record("damaged bytes kept in memory") }
        await harness.stop()
    }

    /// Issue 23: the downloads an event loop reads in one turn (one wake-up) share one presence check of a package
    /// held in memory: one `fstat` per turn rather than per download. A file removed during a turn is noticed by
    /// that loop's next turn and by every other loop; a call off the loops checks every time. Each download still
    /// counts as a cache hit.
    @Test func downloadsReadInOneEventLoopTurnShareOnePresenceCheck() async throws {
        let (harness, _, sign) = try await Self.inMemoryStage()
        defer { harness.removeFiles() }
        let client = harness.service.client
        func download(loop: Int?, turn: UInt64) -> HTTPResponse? {
            var request = Self.packageRequest(sign + ".zip")
            request.eventLoopIndex = loop
            request.eventLoopTurn = turn
            return client.packageIfReady(request)
        }
        #expect(download(loop: 0, turn: 6)?.status == .ok, "prepares the package")
        #expect(download(loop: 0, turn: 7)?.status == .ok, "makes loop 0's replica and finds the file in place")
        try FileManager.default.removeItem(atPath: client.cache.path(for: sign))
        let sameTurn = try #require(download(loop: 0, turn: 7), "read in the turn that found the file in place")
        guard case .bytes = sameTurn.body else {
            Issue.record("sent from the file: \(sameTurn.body)")
            return
        }
        #expect(sameTurn.status == .ok)
        #expect(download(loop: 0, turn: 8) == nil, "the loop's next turn checks again")
        #expect(download(loop: 1, turn: 7) == nil, "another loop's turns are its own")
        #expect(download(loop: nil, turn: 0) == nil, "off the loops, every call checks")
        #expect(download(loop: 0, turn: 0) == nil, "a request no turn read is checked")
        await harness.stop()
    }

    @Test func packageFileNamesAreThirtyTwoLowercaseHexDigitsThenZip() {
        let sign = "0123456789abcdef00ff10203040a0b0"
        #expect(PackageFileName(sign + ".zip")?.sign == sign)
        #expect(PackageFileName(String(repeating: "0", count: 32) + ".zip")?.sign == String(repeating: "0", count: 32))
        for bad in [
            sign, sign + ".ZIP", sign.uppercased() + ".zip", String(sign.dropLast()) + ".zip", sign + "0.zip",
            "g" + sign.dropFirst() + ".zip", "../" + sign.dropFirst(3) + ".zip", ""
        ] {
            #expect(PackageFileName(bad) == nil, "\(bad)")
        }
    }

    @Test func everyByteOfASignIsCheckedAndReadAsItsDigit() {
        let sign = Array("0123456789abcdef00ff10203040a0b0".utf8)
        let hexDigits = Array("0123456789abcdef".utf8)
        for position in sign.indices {
            for byte in UInt8.min...UInt8.max {
                var spelled = sign
                spelled[position] = byte
                let name = (spelled + Array(".zip".utf8)).withUnsafeBufferPointer { PackageFileName(bytes: $0) }
                if hexDigits.contains(byte) {
                    #expect(name?.sign == String(decoding: spelled, as: UTF8.self), "byte \(byte) at \(position)")
                } else {
                    #expect(name == nil, "byte \(byte) at \(position)")
                }
            }
        }
    }

    /// A download of `/api/v1/packages/<file>` as the router hands it to the client API.
    /// A server on a socket that keeps packages of up to 16 MiB in memory, the poll's answer and the package's sign.
    static func inMemoryStage() async throws -> (harness: LiveryHarness, answer: [String: Any], sign: String) {
        let harness = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket) {
            $0.client.inMemoryPackageLimit = 16 << 20
        }
        do {
            let answer = try await harness.poll()
            return (harness, answer, try #require(answer["skinSign"] as? String))
        } catch {
            harness.removeFiles()
            throw error
        }
    }

    static func packageRequest(_ file: String, headers: HTTPHeaders = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: .get, target: "/api/v1/packages/\(file)", headers: headers)
        request.pathParameters = ["file": file]
        return request
    }

    @Test func signIsStableAcrossRestartsAndFollowsContent() async throws {
        let first = try await LiveryHarness(samples: ["christmas-2026"], transport: .socket)
        defer { first.removeFiles() }
        let sign = try #require(try await first.poll()["skinSign"] as? String)
        await first.stop()

        let second = try await LiveryHarness(samples: ["christmas-2026"], root: first.root, transport: .socket)
        #expect(try await second.poll()["skinSign"] as? String == sign)
        #expect(await second.service.client.cache.buildCount == 0, "packages on disk are reused after a restart")
        await second.stop()

        // The store is the source of truth after the first start, so a changed asset arrives as a new store:
        // the same skins folder with one asset changed, imported into a fresh data folder.
        let changedRootScratch = try ScratchDirectory(prefix: "livery-client")
        let changedRoot = changedRootScratch.path
        try FileManager.default.copyItem(atPath: first.skinsDirectory, toPath: changedRoot + "/skins")
        let asset = changedRoot + "/skins/christmas-2026/xmas/star@3x.png"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: asset)))
        bytes.append(0)  // trailing bytes after IEND keep it a PNG but change its content
        try Data(bytes).write(to: URL(fileURLWithPath: asset))
        let third = try await LiveryHarness(samples: ["christmas-2026"], root: changedRoot, transport: .socket)
        let changed = try #require(try await third.poll()["skinSign"] as? String)
        #expect(changed != sign)
        await third.stop()
    }
}
