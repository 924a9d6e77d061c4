import LiveryCrypto
import LiveryJSON
import SkinModel
import SkinPackage
import SkinStore
import ZipReading

extension Changes {
    /// What a push did: the version (new, or the latest one when the files were the same), with what the upload
    /// turned into.
    public struct Pushed: Sendable {
        public let skinID: String
        public let version: Int
        /// False when the files were exactly those of the skin's latest version: nothing was stored.
        public let added: Bool
        /// The version's digest, file count and total size in bytes.
        public let digest: String
        public let fileCount: Int
        public let size: Int
        /// The skin's revision after the push (its `ETag`).
        public let revision: Int
        /// The validation report (its warnings; a push with errors is refused).
        public let report: ValidationReport
        /// Every package variant with its sign.
        public let signs: [(variant: PackageVariant, sign: String)]
        /// Entries left out as archiver junk, and the wrapping folder stripped (if any).
        public let skipped: [String]
        public let strippedFolder: String?
    }

    /// What an accepted upload turned into, before it is stored.
    struct PreparedUpload: Sendable {
        let skinID: String
        let app: String
        let files: [String: [UInt8]]
        let metadata: VersionMetadata
        let report: ValidationReport
        let signs: [(variant: PackageVariant, sign: String)]
        let skipped: [String]
        let strippedFolder: String?
    }

    /// Stores a new version of the skin `archive` holds (its `skin.json` names it), not released. When the files
    /// are exactly those of the skin's latest version (a retried push), nothing is stored and no audit entry is
    /// written (`added` false). The archive is read and validated on a thread of its own, at most
    /// `maxConcurrentUploads` at once.
    ///
    /// - Throws: `upload`, `invalidSkin`; `appMismatch` (unless `force`), `preconditionFailed`; store failures.
    public func push(
        archive: [UInt8], force: Bool, condition: ChangeCondition, by caller: Caller
    ) async throws(ChangeError) -> Pushed {
        let (archiveLimits, limits) = (archiveLimits, limits)
        let prepared = try await uploads.withPermit { () async throws(ChangeError) -> PreparedUpload in
            try await BlockingWorkRunner.onOwnThread(name: "livery.upload") {
                () throws(ChangeError) -> PreparedUpload in
                try Self.prepare(archive: archive, archiveLimits: archiveLimits, limits: limits)
            }
        }
        let (skinID, app) = (prepared.skinID, prepared.app)
        let outcome = try await commit(
            .push, by: caller, field: "body",
            upload: StoreUpload(skinID: skinID, files: prepared.files, metadata: prepared.metadata)
        ) { state throws(ChangeError) in
            try ChangeRules.push(skinID: skinID, app: app, force: force, condition: condition, state: state)
        } log: { outcome in
            guard let version = outcome.state.skins[skinID]?.latestVersion else { return nil }
            return (
                .info,
                outcome.changed
                    ? "skin version uploaded" : "skin upload unchanged; the latest version holds the same files",
                ["skin.id": "\(version.skinID)", "skin.version": "\(version.number)", "actor": "\(caller.actor)"]
            )
        }
        guard let version = outcome.state.skins[skinID]?.latestVersion else { throw .internalError }
        return Pushed(
            skinID: version.skinID, version: version.number, added: outcome.changed, digest: version.digest,
            fileCount: version.files.count, size: version.totalSize,
            revision: outcome.state.revision(ofSkin: version.skinID), report: prepared.report, signs: prepared.signs,
            skipped: prepared.skipped, strippedFolder: prepared.strippedFolder)
    }

    /// Reads, checks and validates an uploaded archive, and plans every package (so a skin that cannot be built
    /// fails here, before anything is stored). Blocking (inflate, validation, hashing).
    static func prepare(
        archive: [UInt8], archiveLimits: ZipArchiveReader.Limits, limits: ValidationLimits
    ) throws(ChangeError) -> PreparedUpload {
        let upload: UploadReader.Upload
        do throws(UploadError) {
            upload = try UploadReader(limits: archiveLimits).read(archive)
        } catch {
            throw .upload(error)
        }
        let source = upload.source
        let report = SkinValidator(limits: limits).validate(source)
        guard let skin = report.skin else { throw .invalidSkin(report) }
        let packager: SkinPackager
        do {
            packager = try SkinPackager(skin: skin, source: source)
        } catch {
            // An in-memory source always reads; this is a bug, not bad input.
            throw .internalError
        }
        let signs = (PackageVariant.all + PackageVariant.bothAppearances).map {
            (variant: $0, sign: packager.sign(for: $0))
        }
        let metadata = VersionMetadata(
            source: "upload",
            archive: VersionMetadata.Archive(
                sha256: SHA256.hexHash(archive), size: archive.count, skipped: upload.skipped,
                strippedFolder: upload.strippedFolder),
            skin: skin.manifest.jsonValue.objectValue, report: report.jsonValue.objectValue)
        return PreparedUpload(
            skinID: skin.manifest.id.rawValue, app: skin.manifest.app, files: upload.files, metadata: metadata,
            report: report, signs: signs, skipped: upload.skipped, strippedFolder: upload.strippedFolder)
    }
}
