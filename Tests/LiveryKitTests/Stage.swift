import Foundation
import TestSupport

/// One `livery serve` over a fresh workspace, with the skin `kit-a` live (from an hour ago for three hours) and,
/// when signed, the key `k1` signing every answer.
///
/// By default the server runs with `--cache-max-age 0`, so every launch of a phone asks again (its catalog is never
/// fresh); `CatalogClientTests` gives the catalog a real max-age.
struct Stage {
    static let everyLaunchAsks = ["--cache-max-age", "0"]

    let workspace: KitWorkspace
    let server: KitServer
    let key: (privateKey: String, publicKey: String)?
    let now: Date

    /// `kit-a`'s window.
    var startsAt: Date { now.addingTimeInterval(-3600) }
    var endsAt: Date { now.addingTimeInterval(3 * 3600) }

    static func make(
        signed: Bool = true, liveSkin: Bool = true, serverArguments: [String] = everyLaunchAsks,
        more: (KitWorkspace, Date) throws -> Void = { _, _ in }
    ) async throws -> Stage {
        let workspace = try KitWorkspace()
        let now = Date()
        if liveSkin {
            try workspace.writeSkin(
                id: "kit-a", marker: "A1", startsAt: now.addingTimeInterval(-3600),
                endsAt: now.addingTimeInterval(3 * 3600))
        }
        try more(workspace, now)
        var key: (String, String)?
        var arguments = serverArguments
        if signed {
            key = try await workspace.createKey("k1")
            arguments += ["--signing-key", key?.0 ?? ""]
        }
        let server = try await KitServer.start(workspace, arguments: arguments)
        return Stage(workspace: workspace, server: server, key: key, now: now)
    }

    /// A phone with its own storage folder, talking to `url` (the server, or a proxy in front of it).
    func phone(_ name: String = "phone", url: String? = nil, trusting keys: [String]? = nil) -> Phone {
        Phone(
            server: url ?? server.url, storage: workspace.root + "/" + name,
            publicKeys: keys ?? (key.map { [$0.publicKey] } ?? []))
    }

    /// Pushes a new version of `kit-a` with `marker` and releases it in the same window; returns nothing.
    func releaseNewVersion(of id: String = "kit-a", marker: String) async throws {
        let folder = try workspace.writeSkin(
            id: id, marker: marker, startsAt: startsAt, endsAt: endsAt, into: workspace.root + "/work-\(marker)")
        let pushed = try await server.admin(["push", folder])
        let version =
            pushed.standardOutput.components(separatedBy: "stored as version ").dropFirst().first?
            .prefix { $0.isNumber } ?? "2"
        _ = try await server.admin(["release", id, "--version", String(version)])
    }
}
