import PostgresTestSupport
import SkinStoreConformance
import Testing

/// `PostgresSkinStore` keeps every promise of the `SkinStore` role, on a real PostgreSQL.
@Suite(.postgresServer) struct PostgresSkinStoreConformanceTests {
    @Test(arguments: StoreConformance.allCases)
    func postgresSkinStoreConforms(to check: StoreConformance) async throws {
        try await check.run(with: StoreFactory(name: "PostgresSkinStore") { try await PostgresStoreStorage() })
    }

    @Test(arguments: ReportLedgerConformance.allCases)
    func postgresReportLedgerConforms(to check: ReportLedgerConformance) async throws {
        try await check.run(with: StoreFactory(name: "PostgresSkinStore") { try await PostgresStoreStorage() })
    }
}
