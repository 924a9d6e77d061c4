import LiveryHTTP
import SkinServing
import SkinStore
import Testing

@testable import LiveryServer

/// An admin change the store could not make because its database is unreachable is a 503 the client may retry,
/// never a 500 or a "not found".
@Suite struct StoreUnavailableTests {
    @Test func anUnreachableStoreIsA503StoreUnavailableWithRetryAfter() {
        let error = APIError.change(
            ChangeError(.unavailable(reason: "could not connect to PostgreSQL: no such socket"), dataDirectory: "/data")
        )
        #expect(error.status == .serviceUnavailable)
        #expect(error.code == "store_unavailable")
        #expect(error.headers["Retry-After"] == "5")
        #expect(!error.message.contains("socket"), "the database's message is for the log, not the client")
    }
}
