import Foundation
import TestSupport
import Testing

/// LiveryKit's catalog mode through `livery-phone`, against the real `livery serve` (and a proxy on 127.0.0.1 that
/// counts, or changes, what the phone receives): the catalog first, the fallbacks the server's answers ask for, the
/// offline decision up to the horizon, refusals that keep the stored catalog, and prefetching.
/// Serialized: each test starts its own server.
@Suite(.serialized) struct CatalogClientTests {
    static let marker = "home/values/value_marker"
    static let catalogPath = "/api/v1/catalog?app=kit&platform=ios"

    @Test func theCatalogComesFirstAsOneURLForEveryDeviceAndIsRevalidatedOnlyAfterItsMaxAge() async throws {
        let stage = try await Stage.make(serverArguments: ["--cache-max-age", "3600"])
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let log = Exchanges()
        proxy.setRule(log.recorder)
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run(["--get", Self.marker])
        #expect(first.status == 0 && first.skinID == "kit-a" && first.value(Self.marker) == "A1", "\(first)")
        #expect(first.line["source"] as? String == "catalog")
        #expect(log.all.first?.path == Self.catalogPath, "the catalog is asked first, without the device id")
        #expect(!log.all.contains { $0.path.hasPrefix("/api/v1/skin") }, "no poll")
        #expect(log.all.filter { $0.path.hasPrefix("/api/v1/packages/") }.count == 1)

        // Another device asks the very same URL: one cache key for a CDN.
        var other = stage.phone("other", url: proxy.url)
        other.deviceID = "device-2"
        let second = try await other.run()
        #expect(second.status == 0 && second.skinID == "kit-a", "\(second)")
        #expect(
            log.all.filter { $0.path.hasPrefix("/api/v1/catalog") }.map(\.path) == [Self.catalogPath, Self.catalogPath])

        // While the stored catalog is fresh (its max-age), a relaunch sends nothing.
        let answer = try #require(log.all.first)
        let maxAge = try #require(answer.maxAge)
        #expect(maxAge > 0, "\(answer)")
        let seen = log.all.count
        let relaunch = try await phone.run()
        #expect(relaunch.status == 0 && relaunch.skinSign == first.skinSign, "\(relaunch)")
        #expect(log.all.count == seen, "no request while the catalog is fresh")

        // Past max-age it is revalidated with its entity tag; unchanged, nothing is downloaded.
        let later = try await phone.run(["--at", iso(Date().addingTimeInterval(Double(maxAge) + 2))])
        #expect(later.status == 0 && later.skinSign == first.skinSign, "\(later)")
        let revalidation = try #require(log.all.dropFirst(seen).first)
        #expect(revalidation.path == Self.catalogPath)
        #expect(answer.etag != nil && revalidation.ifNoneMatch == answer.etag, "\(revalidation)")
        // 304, unless the server's hour-long step ended between the two requests (a new document, the same package).
        #expect(revalidation.status == 304 || revalidation.etag != answer.etag, "\(revalidation)")
        #expect(log.all.filter { $0.path.hasPrefix("/api/v1/packages/") }.count == 2, "one per device, none since")
    }

    @Test func aServerWithoutTheCatalogIsPolledPerDeviceAndAskedForItAgainADayLater() async throws {
        // Unsigned, so the phone's clock can move a day on without answers expiring.
        let stage = try await Stage.make(signed: false)
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        proxy.setRule(TamperingProxy.withoutCatalog(upstreamPort: stage.server.port))
        func count(_ prefix: String) -> Int { proxy.requests.filter { $0.path.hasPrefix(prefix) }.count }
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run()
        #expect(first.status == 0 && first.skinID == "kit-a" && first.line["source"] as? String == "poll", "\(first)")
        #expect(proxy.requests.first?.path == Self.catalogPath)
        #expect(count("/api/v1/catalog") == 1 && count("/api/v1/skin") == 1)

        // Relaunches within the day poll without asking for the catalog (kept in the storage folder).
        let start = Date()
        for offset: TimeInterval in [60, 86_400 - 60] {
            let run = try await phone.run(["--at", iso(start.addingTimeInterval(offset))])
            #expect(run.status == 0 && run.line["source"] as? String == "poll", "\(run)")
        }
        #expect(count("/api/v1/catalog") == 1 && count("/api/v1/skin") == 3)

        // A day later the catalog is asked for first again; served now, it decides.
        proxy.setRule { .send($1) }
        let dayLater = try await phone.run(["--at", iso(start.addingTimeInterval(86_400 + 60))])
        #expect(dayLater.status == 0 && dayLater.line["source"] as? String == "catalog", "\(dayLater)")
        #expect(count("/api/v1/catalog") == 2 && count("/api/v1/skin") == 3)
    }

    @Test func anUnknownAppGetsNoSkinAndSendsNothingForAnHour() async throws {
        let stage = try await Stage.make(signed: false, liveSkin: false)
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run()
        #expect(first.status == 0 && first.skinSign == "" && first.line["source"] as? String == "catalog", "\(first)")
        #expect(proxy.requests.map(\.path) == [Self.catalogPath], "404 unknown_app, and no poll")

        // The app's first skin is released; within the hour relaunches still send nothing (a new app's launch peak
        // does not reach the origin), after it the catalog is asked for and applies.
        let folder = try stage.workspace.writeSkin(
            id: "kit-a", marker: "A1", startsAt: stage.startsAt, endsAt: stage.endsAt,
            into: stage.workspace.root + "/work")
        _ = try await stage.server.admin(["push", folder])
        _ = try await stage.server.admin([
            "release", "kit-a", "--from", iso(stage.startsAt), "--until", iso(stage.endsAt)
        ])
        let start = Date()
        let soon = try await phone.run(["--at", iso(start.addingTimeInterval(3600 - 60))])
        #expect(soon.status == 0 && soon.skinSign == "", "\(soon)")
        #expect(proxy.requests.count == 1, "nothing asked within the hour")
        let later = try await phone.run(["--at", iso(start.addingTimeInterval(3600 + 60))])
        #expect(
            later.status == 0 && later.skinID == "kit-a" && later.line["source"] as? String == "catalog", "\(later)")
        #expect(proxy.requests.filter { $0.path.hasPrefix("/api/v1/catalog") }.count == 2)
    }

    @Test func aStoredCatalogDecidesOfflineUntilItsHorizonWhateverItsExpiresAtAndNothingAfter() async throws {
        let stage = try await Stage.make(serverArguments: Stage.everyLaunchAsks + ["--catalog-horizon", "3600"])
        let phone = stage.phone()
        let online = try await phone.run()
        #expect(
            online.status == 0 && online.skinID == "kit-a" && online.line["source"] as? String == "catalog", "\(online)"
        )
        let stored = try StoredCatalogFile(storage: phone.storage)
        #expect(stored.expiresAt < stored.horizonEndsAt, "the signature expires long before the horizon")
        #expect(stored.horizonEndsAt < stage.endsAt, "kit-a's window goes on past the horizon")

        let inside = try await phone.run(["--offline", "--at", iso(stored.horizonEndsAt.addingTimeInterval(-1))])
        #expect(inside.status == 0 && inside.skinSign == online.skinSign, "\(inside)")
        #expect(inside.line["source"] as? String == "catalog")
        let atHorizon = try await phone.run(["--offline", "--at", iso(stored.horizonEndsAt)])
        #expect(atHorizon.status == 0 && atHorizon.skinSign == "" && atHorizon.skinID == nil, "\(atHorizon)")

        // Online again, a new catalog decides.
        let refreshed = try await phone.run()
        #expect(refreshed.status == 0 && refreshed.skinSign == online.skinSign, "\(refreshed)")
    }

    @Test func aTamperedUnsignedOrMisdirectedCatalogIsRefusedAndTheStoredOneKept() async throws {
        let stage = try await Stage.make()
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)
        let first = try await phone.run(["--get", Self.marker])
        #expect(first.status == 0 && first.value(Self.marker) == "A1", "\(first)")
        let catalogFile = URL(fileURLWithPath: phone.storage + "/catalog.json")
        let storedBytes = try Data(contentsOf: catalogFile)
        try await stage.releaseNewVersion(marker: "A2")

        let port = stage.server.port
        let rules: [(code: String, rule: TamperingProxy.Rule)] = [
            (
                "signature",
                { request, response in
                    guard request.path.hasPrefix("/api/v1/catalog"), response.status == 200 else {
                        return .send(response)
                    }
                    var changed = response
                    let text = String(decoding: changed.body, as: UTF8.self)
                    changed.body = Array(text.replacingOccurrences(of: #""rollout":100"#, with: #""rollout":99"#).utf8)
                    return .send(changed)
                }
            ),
            (
                "unsigned",
                { request, response in
                    guard request.path.hasPrefix("/api/v1/catalog") else { return .send(response) }
                    var stripped = response
                    stripped.setHeader("Livery-Signature", nil)
                    return .send(stripped)
                }
            ),
            // The (validly signed) catalog of another platform.
            (
                "wrong_answer",
                { request, response in
                    guard request.path.hasPrefix("/api/v1/catalog"),
                        let android = try? HTTPGet.fetch(
                            port: port,
                            path: request.path.replacingOccurrences(of: "platform=ios", with: "platform=android"))
                    else { return .send(response) }
                    return .send(TamperingProxy.Response(android))
                }
            )
        ]
        for (code, rule) in rules {
            proxy.setRule(rule)
            let run = try await phone.run(["--get", Self.marker])
            #expect(run.status == 1 && run.errorCode == code, "\(code): \(run)")
            #expect(run.skinSign == first.skinSign && run.value(Self.marker) == "A1", "\(code): \(run)")
            #expect(run.line["source"] as? String == "catalog", "\(code)")
            #expect(try Data(contentsOf: catalogFile) == storedBytes, "\(code): the stored catalog is kept as it was")
            #expect(listing(phone.storage + "/packages") == [first.skinSign], "\(code)")
        }
        proxy.setRule { .send($1) }
        let passed = try await phone.run(["--get", Self.marker])
        #expect(passed.status == 0 && passed.value(Self.marker) == "A2", "\(passed)")
        #expect(try Data(contentsOf: catalogFile) != storedBytes)
    }

    @Test func skinsStartingWithinTheHorizonArePrefetchedVerifiedAndSwitchOnOfflineAtTheirStart() async throws {
        let day: TimeInterval = 86_400
        // kit-b starts in 8 days (past a poll's 7-day `next`, inside the catalog's 14-day horizon); kit-c in 20.
        let stage = try await Stage.make { workspace, now in
            try workspace.writeSkin(
                id: "kit-b", marker: "B1", startsAt: now.addingTimeInterval(8 * day),
                endsAt: now.addingTimeInterval(9 * day))
            try workspace.writeSkin(
                id: "kit-c", marker: "C1", startsAt: now.addingTimeInterval(20 * day),
                endsAt: now.addingTimeInterval(21 * day))
        }
        let kitBStart = Date(timeIntervalSince1970: (stage.now.timeIntervalSince1970 + 8 * day).rounded(.down))
        let proxy = try TamperingProxy(upstreamPort: stage.server.port)
        let phone = stage.phone(url: proxy.url)

        // A prefetch is verified like any download: kit-b's package changed on the way is refused (kit-a's, the skin
        // that applies now, comes first and is served as it is).
        let downloads = Exchanges()
        proxy.setRule { request, response in
            guard request.path.hasPrefix("/api/v1/packages/"), response.status == 200 else { return .send(response) }
            guard downloads.record(request, response).count > 1 else { return .send(response) }
            var changed = response
            changed.body[changed.body.count / 2] ^= 0x01
            return .send(changed)
        }
        let tampered = try await phone.run()
        #expect(tampered.status == 1 && tampered.errorCode == "hash" && tampered.skinID == "kit-a", "\(tampered)")
        #expect(listing(phone.storage + "/packages").count == 1)

        proxy.setRule { .send($1) }
        let online = try await phone.run()
        #expect(online.status == 0 && online.skinID == "kit-a", "\(online)")
        #expect(listing(phone.storage + "/packages").count == 2, "kit-a and kit-b; kit-c is past the horizon")
        #expect(listing(phone.storage + "/downloads").isEmpty)

        let asked = proxy.requests.count
        let before = try await phone.run(["--offline", "--at", iso(kitBStart.addingTimeInterval(-1))])
        #expect(before.status == 0 && before.skinSign == "", "\(before)")
        let started = try await phone.run(["--offline", "--at", iso(kitBStart), "--get", Self.marker])
        #expect(started.status == 0 && started.skinID == "kit-b" && started.value(Self.marker) == "B1", "\(started)")
        #expect(started.line["source"] as? String == "catalog")
        #expect(proxy.requests.count == asked, "offline: no request")
    }
}

/// What a proxy rule saw: each request's path and `If-None-Match`, and the answer's status, `ETag` and max-age.
final class Exchanges: @unchecked Sendable {
    struct Exchange: Sendable, CustomStringConvertible {
        var path: String
        var ifNoneMatch: String?
        var status: Int
        var etag: String?
        var maxAge: Int?
        var description: String {
            "\(path) If-None-Match \(ifNoneMatch ?? "-") → \(status) ETag \(etag ?? "-") max-age \(maxAge.map(String.init) ?? "-")"
        }
    }

    private let lock = NSLock()
    private var seen: [Exchange] = []

    var all: [Exchange] { lock.withLock { seen } }

    /// Records the exchange; returns every exchange so far.
    @discardableResult
    func record(_ request: TamperingProxy.Request, _ response: TamperingProxy.Response) -> [Exchange] {
        let maxAge = response.header("Cache-Control")?.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("max-age=") }
            .flatMap { Int($0.dropFirst("max-age=".count)) }
        let exchange = Exchange(
            path: request.path, ifNoneMatch: request.header("If-None-Match"), status: response.status,
            etag: response.header("ETag"), maxAge: maxAge)
        return lock.withLock {
            seen.append(exchange)
            return seen
        }
    }

    /// A proxy rule that records every exchange and sends the answer unchanged.
    var recorder: TamperingProxy.Rule {
        { [self] request, response in
            record(request, response)
            return .send(response)
        }
    }
}

/// The catalog a phone stored (`catalog.json` in its storage folder), as the test reads it.
struct StoredCatalogFile {
    let horizonEndsAt: Date
    let expiresAt: Date

    init(storage: String) throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: storage + "/catalog.json"))
        let wrapper = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        let body = try #require(wrapper["body"] as? String)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let reader = ISO8601DateFormatter()
        horizonEndsAt = try #require((document["horizonEndsAt"] as? String).flatMap(reader.date(from:)))
        expiresAt = try #require((document["expiresAt"] as? String).flatMap(reader.date(from:)))
    }
}
