import Foundation
import Hummingbird
import Logging

/// `HummingbirdPeer HOST PORT BODY_FILE`: serves the file's bytes at `GET /bench` as `application/json`.
///
/// The body is read once at startup and answered from memory, as Livery's `--bench-body` route does, so the
/// benchmark compares the servers' request paths rather than disk access. No request logging (Hummingbird adds
/// none unless a middleware asks), matching Livery run at `--log-level warning` and nginx with `access_log off`.
@main
struct HummingbirdPeer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let port = Int(arguments[2]) else {
            FileHandle.standardError.write(Data("usage: HummingbirdPeer HOST PORT BODY_FILE\n".utf8))
            exit(2)
        }
        let body = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))
        let buffer = ByteBuffer(bytes: body)

        let router = Router()
        router.get("bench") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: buffer)
            )
        }
        var logger = Logger(label: "hummingbird-peer")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(arguments[1], port: port)),
            logger: logger
        )
        try await app.runService()
    }
}
