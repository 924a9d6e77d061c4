import Foundation
import Logging
import SkinModel
import SkinServing
import Synchronization

/// Builders for serving-core tests: no HTTP, no server.
enum ServingFixtures {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A `DurableWrite` that writes in place and remembers each path it wrote (tests need no crash safety).
    final class RecordingWriter: Sendable {
        private let written = Mutex<[String]>([])

        var paths: [String] { written.withLock { $0 } }

        var write: DurableWrite {
            { [self] path, bytes in
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                written.withLock { $0.append(path) }
            }
        }
    }

    /// A package cache in `directory` whose durable writes go to `writer`.
    static func cache(_ directory: String, writer: RecordingWriter = RecordingWriter()) throws -> PackageCache {
        try PackageCache(directory: directory, logger: quiet, writeDurably: writer.write)
    }

    /// A minimal valid skin: `skin.json` (with `release` when given) and a `config.json` with one color.
    static func tinySkin(id: String = "tiny", app: String = "demo", release: String? = nil) -> [String: [UInt8]] {
        let releasePart = release.map { #","release":\#($0)"# } ?? ""
        return [
            "skin.json": Array(#"{"id":"\#(id)","title":"Tiny","app":"\#(app)"\#(releasePart)}"#.utf8),
            "config.json": Array(##"{"home":{"colors":{"color_background":"#FFFFFF"}}}"##.utf8)
        ]
    }

    /// A window open from an hour before `now` to an hour after.
    static func window(around now: Date) -> ReleasePlan {
        ReleasePlan(startsAt: now.addingTimeInterval(-3600), endsAt: now.addingTimeInterval(3600))
    }
}
