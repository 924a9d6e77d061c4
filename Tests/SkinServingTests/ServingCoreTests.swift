import Foundation
import LiveryCrypto
import SkinModel
import SkinStore
import Synchronization
import TestSupport
import Testing

@testable import SkinServing

/// The serving core used directly, as any adapter would: a catalog built from a store answers a poll with the
/// bytes of the package it built, with no HTTP type anywhere on the way.
@Suite struct ServingCoreTests {
    typealias F = ServingFixtures

    /// A store holding the tiny skin `demo` released around `now`, and a builder over it.
    static func released(
        in scratch: ScratchDirectory, now: Date
    ) async throws -> (store: FileSkinStore, builder: CatalogBuilder) {
        let store = try FileSkinStore(directory: scratch.path("store"))
        try await store.addVersion(
            skinID: "tiny", files: F.tinySkin(), metadata: VersionMetadata(), expectedRevision: 0,
            release: F.window(around: now), actor: "test")
        let cache = try F.cache(scratch.path("packages"))
        return (store, CatalogBuilder(store: store, cache: cache, limits: ValidationLimits()))
    }

    @Test func aCatalogBuiltFromTheStoreAnswersAPollWithThePackageItBuilt() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-serving-core")
        let now = Date()
        let (store, builder) = try await Self.released(in: scratch, now: now)
        let (catalog, problems) = try #require(await builder.build(store.snapshot))
        #expect(problems.isEmpty)

        let parameters = ["app": "demo", "platform": "Android", "appVersion": "7.1", "scale": "2", "appearance": "dark"]
        let request = try SkinRequest.parse { parameters[$0] }
        let decision = SkinResolver.resolve(request, in: catalog, at: now)
        let answer = AnswerFragments(catalog: catalog).answer(for: decision)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])

        #expect(request.variant == PackageVariant(scale: 2, appearance: .dark))
        let record = try #require(decision.currentPackage)
        #expect(record === catalog.releases["demo"]?.first?.package(for: request.variant))
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: record.path)))
        #expect(body["skinId"] as? String == "tiny")
        #expect(body["skinSign"] as? String == record.sign && answer.skinSign == record.sign)
        #expect(body["packageUrl"] as? String == "/api/v1/packages/\(record.sign).zip")
        #expect(body["sha256"] as? String == SHA256.hexHash(file))
        #expect(body["size"] as? Int == file.count)
        #expect(answer.etag == "\"" + SHA256.hexHash(answer.body).prefix(32) + "\"")
        store.close()
    }

    @Test func aBuildAllowedToStopStopsInACancelledTaskAndAnyOtherBuildEndsInACatalog() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-serving-core")
        let (store, builder) = try await Self.released(in: scratch, now: Date())
        let snapshot = store.snapshot
        let (stopped, finished) = try await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return (
                try await builder.build(snapshot, stopsWhenCancelled: true),
                try await builder.build(snapshot)
            )
        }.value
        #expect(stopped == nil, "a server stopping during its first load does not wait for the package builds")
        // A publish after a committed change must serve it, whatever its task.
        #expect(finished?.catalog.releases["demo"]?.count == 1)
        #expect(finished?.problems.isEmpty == true)
        store.close()
    }

    @Test func theStoresKillSwitchEmptiesEveryAnswerForItsApp() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-serving-core")
        let now = Date()
        let (store, builder) = try await Self.released(in: scratch, now: now)
        try await store.setKillSwitch(app: "demo", enabled: true, reason: "drill", expectedRevision: nil, actor: "ops")
        let (catalog, _) = try #require(await builder.build(store.snapshot))

        let request = try SkinRequest.parse { ["app": "demo", "platform": "ios", "appVersion": "7.1"][$0] }
        let answer = AnswerFragments(catalog: catalog).answer(for: SkinResolver.resolve(request, in: catalog, at: now))
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"skinSign":""}"#)
        store.close()
    }

    @Test func thePublisherHandsEachCatalogItBuildsToItsClosureOnce() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-serving-core")
        let (store, builder) = try await Self.released(in: scratch, now: Date())
        let published = Mutex<[Catalog]>([])
        let publisher = CatalogPublisher(builder: builder, logger: F.quiet) { catalog in
            published.withLock { $0.append(catalog) }
        }
        #expect(published.withLock { $0.count } == 0, "building is not publishing")
        #expect(await publisher.publishLatest() == store.snapshot.revision)
        #expect(published.withLock { $0.count } == 1)
        let served = try #require(published.withLock { $0.first })
        #expect(served.releases["demo"]?.map(\.skinID.rawValue) == ["tiny"])
        #expect(!served.packages.isEmpty && Set(served.origins.keys) == Set(served.packages.keys))
        store.close()
    }

    @Test func packageBuildRecordsAreWrittenWithTheGivenDurableWrite() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-serving-core")
        let store = try FileSkinStore(directory: scratch.path("store"))
        try await store.addVersion(
            skinID: "tiny", files: F.tinySkin(), metadata: VersionMetadata(), expectedRevision: 0,
            release: F.window(around: Date()), actor: "test")
        let writer = F.RecordingWriter()
        let builder = CatalogBuilder(
            store: store, cache: try F.cache(scratch.path("packages"), writer: writer), limits: ValidationLimits())
        let (catalog, _) = try #require(await builder.build(store.snapshot))
        #expect(Set(writer.paths) == Set(catalog.packages.values.map { $0.path + ".sha256" }))
        store.close()
    }

    @Test func theImporterWritesItsMarkerWithTheGivenDurableWrite() async throws {
        let scratch = try ScratchDirectory(prefix: "livery-serving-core")
        _ = try scratch.write(
            F.tinySkin(release: #"{"startsAt":"2027-01-01T00:00:00Z","endsAt":"2027-02-01T00:00:00Z"}"#),
            under: "skins/tiny")
        let store = try FileSkinStore(directory: scratch.path("data/store"))
        let writer = F.RecordingWriter()
        let importer = SkinImporter(
            store: store, skinsDirectory: scratch.path("skins"), dataDirectory: scratch.path("data"),
            limits: ValidationLimits(), logger: F.quiet, writeDurably: writer.write)
        let summary = try await importer.importIfPending()
        #expect(summary.imported == ["tiny"])
        #expect(writer.paths == [scratch.path("data/" + SkinImporter.markerName)])
        #expect(try await importer.isPending() == false)
        store.close()
    }
}

/// A poll's rules live in the core: an adapter hands over the values it read, and the core names what is wrong.
@Suite struct SkinRequestRuleTests {
    static func check(
        platform: Platform?? = .some(.ios), scale: Int?? = nil, appearance: PackageAppearance?? = nil
    ) -> Result<SkinRequest, InvalidParameter> {
        let sent: [SkinRequest.Parameter: String] = [.platform: "beos", .scale: "4", .appearance: "sepia"]
        return Result { () throws(InvalidParameter) in
            try SkinRequest.checked(
                app: "demo", platform: platform, appVersion: "7.2", deviceID: nil, sign: nil, scale: scale,
                appearance: appearance, sent: { sent[$0] })
        }
    }

    @Test func aValueNamingNothingIsRejectedWithWhatWasSent() {
        #expect(
            Self.check(platform: .some(nil))
                == .failure(
                    InvalidParameter(
                        "platform", "must be one of ios, android, harmony, macos (in any case)", value: "beos")))
        #expect(Self.check(scale: .some(nil)) == .failure(InvalidParameter("scale", "must be 1, 2 or 3", value: "4")))
        #expect(
            Self.check(appearance: .some(nil))
                == .failure(
                    InvalidParameter(
                        "appearance", "must be light, dark, unspecified or any (in any case)", value: "sepia")))
    }

    @Test func aMissingPlatformIsRequiredAndMissingVariantPartsTakeTheirDefaults() throws {
        #expect(Self.check(platform: nil) == .failure(InvalidParameter("platform", "is required")))
        #expect(try Self.check().get().variant == PackageVariant(scale: 3, appearance: .light))
        #expect(try Self.check(appearance: .any).get().variant == PackageVariant(scale: 3, contents: .any))
    }

    @Test func valuesAreReadFromTheirBytesInAnyCase() {
        func read<Value>(_ text: String, _ reader: (UnsafeBufferPointer<UInt8>) -> Value?) -> Value? {
            Array(text.utf8).withUnsafeBufferPointer(reader)
        }
        #expect(read("HarmonY", SkinRequest.platform(in:)) == .harmony)
        #expect(read("Unspecified", SkinRequest.appearance(in:)) == .light)
        #expect(read("ANY", SkinRequest.appearance(in:)) == .any, "both appearances in one package")
        #expect(read("+02", SkinRequest.scale(in:)) == 2)
        #expect(read("0", SkinRequest.scale(in:)) == nil)
    }
}

/// The serving core's sources never import the HTTP layer (its target does not depend on it either).
@Suite struct ServingCoreBoundaryTests {
    @Test func noSourceOfTheServingCoreImportsHTTP() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SkinServing").path
        let files = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") }
        #expect(files.contains("SkinRequest.swift") && files.contains("SkinAnswer.swift"))
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            #expect(!text.contains("import LiveryHTTP"), "\(file)")
        }
    }
}
