import Foundation
import TestSupport
import Testing

@Suite struct BuiltProductTests {
    @Test func findsThePackagesExecutablesBesideTheTests() throws {
        for name in ["livery", "zip-bench", "store-torture"] {
            let path = try BuiltProduct.path(name)
            #expect(URL(fileURLWithPath: path).lastPathComponent == name)
            #expect(FileManager.default.isExecutableFile(atPath: path))
        }
    }

    @Test func aMissingProductIsAnErrorNamingWhereItLooked() {
        #expect {
            try BuiltProduct.path("no-such-product")
        } throws: { error in
            guard let notFound = error as? BuiltProduct.NotFound else { return false }
            return notFound.product == "no-such-product" && !notFound.searched.isEmpty
                && notFound.description.contains("swift build --build-tests")
        }
    }

    @Test func anEnvironmentOverrideWinsWhenItNamesAnExecutable() throws {
        let variable = "LIVERY_TEST_SUPPORT_OVERRIDE_\(getpid())"
        setenv(variable, "/bin/sh", 1)
        defer { unsetenv(variable) }
        #expect(try BuiltProduct.path("livery", environmentOverride: variable) == "/bin/sh")
        #expect(try BuiltProduct.path("livery", environmentOverride: "\(variable)_UNSET") != "/bin/sh")
    }

    @Test func theLiveryBinaryIsFoundAndRunsToCompletionWithItsOutput() async throws {
        #expect(URL(fileURLWithPath: try BuiltProduct.livery()).lastPathComponent == "livery")
        let help = try await BuiltProduct.runLivery(["--help"])
        #expect(help.status == 0 && help.standardOutput.contains("serve"), "\(help.standardError)")
        let unknown = try await BuiltProduct.runLivery(["no-such-command"])
        #expect(unknown.status != 0)
    }
}
