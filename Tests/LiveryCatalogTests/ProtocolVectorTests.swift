import Foundation
import LiveryCatalog
import TestSupport
import Testing

/// docs/protocol-vectors.json run against `CatalogDecision`, and against the independent Python evaluator written
/// from docs/PROTOCOL.md, so the document (not the Swift code) is what the vectors pin.
@Suite struct ProtocolVectorTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let vectorsPath = repository.path + "/docs/protocol-vectors.json"

    /// One vector as the file states it.
    struct Vector {
        let name: String
        let catalog: String
        let deviceId: String?
        let appVersion: String
        let at: String
        let scale: Int?
        let appearance: String?
        let expectSkin: String?
        let expectSign: String
        let expectNext: (skinId: String, skinSign: String)?
        let expectThemes: [String]
    }

    /// The catalogs (each parsed from its own bytes by `CatalogDocument.parse`), the vectors and the `next` horizon.
    static func load() throws -> (catalogs: [String: CatalogDocument], vectors: [Vector], horizon: TimeInterval) {
        let data = try Data(contentsOf: URL(fileURLWithPath: vectorsPath))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rawCatalogs = try #require(root["catalogs"] as? [String: Any])
        var catalogs: [String: CatalogDocument] = [:]
        for (name, value) in rawCatalogs {
            let bytes = try JSONSerialization.data(withJSONObject: value)
            catalogs[name] = try CatalogDocument.parse(Array(bytes))
        }
        let horizon = try #require(root["nextHorizonSeconds"] as? Int)
        let vectors = try #require(root["vectors"] as? [[String: Any]]).map { item -> Vector in
            let expect = item["expect"] as? [String: Any] ?? [:]
            let next = (expect["next"] as? [String: Any]).flatMap { next -> (skinId: String, skinSign: String)? in
                guard let id = next["skinId"] as? String, let sign = next["skinSign"] as? String else { return nil }
                return (id, sign)
            }
            return Vector(
                name: item["name"] as? String ?? "?", catalog: item["catalog"] as? String ?? "?",
                deviceId: item["deviceId"] as? String, appVersion: item["appVersion"] as? String ?? "",
                at: item["at"] as? String ?? "", scale: item["scale"] as? Int,
                appearance: item["appearance"] as? String,
                expectSkin: expect["skinId"] as? String, expectSign: expect["skinSign"] as? String ?? "?",
                expectNext: next, expectThemes: expect["themes"] as? [String] ?? ["?"])
        }
        return (catalogs, vectors, TimeInterval(horizon))
    }

    @Test func everyProtocolVectorGetsItsExpectedAnswerFromCatalogDecision() throws {
        let (catalogs, vectors, horizon) = try Self.load()
        #expect(vectors.count >= 30)
        #expect(horizon == CatalogDecision.nextHorizon)
        for vector in vectors {
            let document = try #require(catalogs[vector.catalog], "\(vector.name): no catalog \(vector.catalog)")
            let version = try #require(CatalogAppVersion(vector.appVersion), "\(vector.name)")
            let instant = try #require(CatalogInstant.parse(vector.at), "\(vector.name)")
            let variant = try #require(
                CatalogVariant.requested(scale: vector.scale.map(String.init), appearance: vector.appearance))
            let answer = CatalogDecision.decide(
                document, deviceId: vector.deviceId, appVersion: version, at: instant, variant: variant)
            #expect(answer.current?.entry.skinId == vector.expectSkin, "\(vector.name)")
            #expect(answer.skinSign == vector.expectSign, "\(vector.name)")
            #expect(answer.next?.entry.skinId == vector.expectNext?.skinId, "\(vector.name)")
            #expect(answer.next?.package?.skinSign == vector.expectNext?.skinSign, "\(vector.name)")
            #expect(answer.themes.map(\.entry.skinId) == vector.expectThemes, "\(vector.name)")
        }
    }

    @Test func theIndependentPythonEvaluatorPassesEveryVector() async throws {
        let script = Self.repository.path + "/Tests/Protocol/evaluate_vectors.py"
        let output = try await ExternalProcess.run("python3", [script, Self.vectorsPath])
        #expect(output.status == 0, "\(output.transcript)")
        let count = try Self.load().vectors.count
        #expect(output.standardOutput.contains("\(count) passed, 0 failed"), "\(output.transcript)")
    }

    /// The vectors pin the rules: a decision that broke one (here, a window end read as inclusive) fails some.
    @Test func theVectorsCatchAWindowEndReadAsInclusive() throws {
        let (catalogs, vectors, _) = try Self.load()
        let document = try #require(catalogs["ios"])
        let vector = try #require(vectors.first { $0.name.hasPrefix("window end is exclusive: at legacy's endsAt") })
        var widened = document
        widened.skins = document.skins.map { entry in
            var entry = entry
            entry.endsAt = entry.endsAt.addingTimeInterval(1)
            return entry
        }
        let instant = try #require(CatalogInstant.parse(vector.at))
        let version = try #require(CatalogAppVersion(vector.appVersion))
        let wrong = CatalogDecision.decide(widened, deviceId: vector.deviceId, appVersion: version, at: instant)
        #expect(wrong.current?.entry.skinId != vector.expectSkin)
    }
}
