// store-torture: a child process for SkinStoreTests' crash-safety test. Not part of the product.
//
// Usage: store-torture DIRECTORY SEED MAX_CHANGES
// Opens the store in DIRECTORY (recovering whatever a killed predecessor left), then makes up to MAX_CHANGES
// random changes chosen with SEED. After each mutator returns it prints one line to stdout, unbuffered:
//   ack <revision> version.add <skin> <number> <digest>
//   ack <revision> release.set <skin> <version>
//   ack <revision> release.clear <skin>
//   ack <revision> killswitch.set <app or -> <0|1>
//   ack <revision> skin.delete <skin>
// A line is printed only after the change is acknowledged (durable), so the parent may kill this process at
// any instant and still expect every printed change to be in the store. Failures print "error …" and exit 2.

import Foundation
import SkinModel
import SkinStore
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let written = bytes[done...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            exit(3)
        }
        done += written
    }
}

/// A year-long release plan with `rollout`.
func plan(rollout: Int) -> ReleasePlan {
    ReleasePlan(
        startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: Date(timeIntervalSince1970: 1_831_536_000),
        rollout: rollout)
}

func fail(_ message: String) -> Never {
    emit("error \(message)")
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let seed = UInt64(arguments[2]), let maxChanges = Int(arguments[3]) else {
    fail("usage: store-torture DIRECTORY SEED MAX_CHANGES")
}

let store: FileSkinStore
do {
    store = try FileSkinStore(directory: arguments[1])
} catch {
    fail("open: \(error)")
}

// The same content pool in every run, so blobs are shared across versions and runs; sizes from 1 KiB to
// 512 KiB so that some writes take long enough to be interrupted.
let pool: [[UInt8]] = (0..<10).map { index in
    [UInt8](repeating: UInt8(index), count: 1024 << index) + Array("pool \(index)".utf8)
}
let skinIDs = ["aurora", "blossom", "cinder", "dune"]
let paths = ["config.json", "images/background.png", "images/icon.png", "images/banner@3x.png", "fonts/title.ttf"]
let apps = ["news", "mail", "maps"]
var random = SplitMix64(seed: seed)

for step in 0..<maxChanges {
    let snapshot = store.snapshot
    let live = snapshot.skinIDs
    do {
        switch random.next() % 100 {
        case 0..<35:
            let skinID = skinIDs[Int(random.next() % UInt64(skinIDs.count))]
            var files = [String: [UInt8]]()
            for path in paths where random.next() % 3 != 0 {
                files[path] = pool[Int(random.next() % UInt64(pool.count))]
            }
            files["stamp.txt"] = Array("\(seed)-\(step)".utf8)
            let release = random.next() % 4 == 0 ? plan(rollout: 100) : nil
            let version = try await store.addVersion(
                skinID: skinID, files: files, metadata: VersionMetadata(folder: "\(seed)-\(step)"), release: release,
                actor: "torture")
            emit("ack \(store.snapshot.revision) version.add \(skinID) \(version.number) \(version.digest)")
        case 35..<60 where !live.isEmpty:
            guard let skin = snapshot.skins[live[Int(random.next() % UInt64(live.count))]] else { continue }
            let version = skin.versions[Int(random.next() % UInt64(skin.versions.count))].number
            let updated = try await store.setRelease(
                skinID: skin.id, version: version, plan: plan(rollout: Int(random.next() % 101)),
                expectedRevision: skin.revision, actor: "torture")
            emit("ack \(updated.revision) release.set \(skin.id) \(version)")
        case 60..<70 where !live.isEmpty:
            let released = live.filter { snapshot.skins[$0]?.release != nil }
            guard !released.isEmpty else { continue }
            let skinID = released[Int(random.next() % UInt64(released.count))]
            let updated = try await store.clearRelease(skinID: skinID, actor: "torture")
            emit("ack \(updated.revision) release.clear \(skinID)")
        case 70..<90:
            let app = random.next() % 4 == 0 ? nil : apps[Int(random.next() % UInt64(apps.count))]
            let enabled = random.next() % 2 == 0
            let switches = try await store.setKillSwitch(
                app: app, enabled: enabled, reason: "step \(step)", actor: "torture")
            emit("ack \(switches.revision) killswitch.set \(app ?? "-") \(enabled ? 1 : 0)")
        case 90..<100 where !live.isEmpty:
            let skinID = live[Int(random.next() % UInt64(live.count))]
            let revision = try await store.deleteSkin(skinID: skinID, force: true, actor: "torture")
            emit("ack \(revision) skin.delete \(skinID)")
        default:
            continue
        }
    } catch {
        fail("step \(step): \(error)")
    }
}
