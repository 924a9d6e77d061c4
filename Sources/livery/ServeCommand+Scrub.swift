import CoreMetrics
import Foundation
import LiveryServer
import LiverySetup
import Logging
import PostgresSkinStore
import SkinServing
import SkinStore

extension ServeCommand {
    /// Scrubs the store and the package cache every `--scrub-interval` seconds once the catalog is loaded, as
    /// `livery store verify` does: each damage is logged (error, with its `damaged …` line) and counted
    /// (`livery_scrub_damaged{kind}`: what the last scrub found; `livery_scrub_damage_found_total{kind}`;
    /// `livery_scrub_runs_total`). On PostgreSQL a scrub runs only on the replica that takes the scrub advisory
    /// lock; the others skip that round.
    ///
    /// Versions found damaged (a blob they use missing or changed) are then marked in the store
    /// (`SkinStore.recordScrub`), so they are left out as damage found at load is, by every replica (they reload
    /// at the change) and after a restart: not served (polls fall back as their rules say), reported by `/readyz`,
    /// `GET /admin/v1/skins/{id}` and `livery_store_damaged_versions`, refused with 500 `version_damaged`. A mark
    /// is cleared by the first scrub that finds the version sound again (restored from a backup). Nothing is
    /// repaired here: an operator restores what is named. Returns nil when scrubbing is off (interval 0).
    static func scrubbing(
        _ settings: LiveryConfiguration, service: LiveryService, store: PostgresSkinStore?, loaded: Task<Bool, Never>,
        logger: Logger
    ) -> Task<Void, Never>? {
        let interval = settings.scrubInterval
        guard interval > .zero else { return nil }
        let dataDirectory = settings.dataDirectory
        let configuration = store?.configuration
        return Task {
            guard await loaded.value else { return }
            // Made when the first scrub is due, so /metrics shows the series once there is something to count.
            var series: ScrubSeries?
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                var report: StoreScrubReport
                do throws(StoreError) {
                    if let configuration {
                        guard let scrubbed = try await PostgresSkinStore.scrub(configuration, exclusive: true) else {
                            logger.debug("scrub skipped: another replica is scrubbing")
                            continue
                        }
                        report = scrubbed
                    } else {
                        report = try await onOwnThread { () throws(StoreError) in
                            try FileSkinStore.scrub(directory: dataDirectory + "/store")
                        }
                    }
                } catch {
                    logger.warning("scrub failed; trying again at the next interval", metadata: ["error": "\(error)"])
                    continue
                }
                report.merge(await onOwnThread { PackageCache.scrub(directory: dataDirectory + "/packages") })
                let counted = series ?? ScrubSeries()
                series = counted
                counted.count(report)
                for damage in report.damages {
                    logger.error(
                        "\(damage.line)",
                        metadata: [
                            "damage.kind": "\(damage.kind.rawValue)", "skin.id": "\(damage.skinID)",
                            "skin.version": "\(damage.version)", "damage.location": "\(damage.location)"
                        ])
                }
                let summary: Logger.Metadata = [
                    "scrub.blobs": "\(report.checkedBlobs)", "scrub.versions": "\(report.checkedVersions)",
                    "scrub.packages": "\(report.checkedPackages)", "scrub.damaged": "\(report.damages.count)"
                ]
                if report.isClean {
                    logger.info("scrub found no damage", metadata: summary)
                } else {
                    logger.error("scrub found damage: restore what is named from a backup", metadata: summary)
                }
                do throws(StoreError) {
                    let changed = try await service.store.recordScrub(report)
                    guard !changed.isEmpty else { continue }
                    logger.notice(
                        "scrub's damaged versions recorded in the store: left out of serving until a scrub finds them sound",
                        metadata: ["skin.ids": "\(changed.joined(separator: ","))"])
                    await service.publishStoreChanges()
                } catch {
                    logger.warning(
                        "the scrub's findings could not be recorded in the store; trying again at the next interval",
                        metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Runs blocking disk work on a thread of its own (a scrub reads everything; it must not hold a thread of the
    /// cooperative pool).
    private static func onOwnThread<T: Sendable, E: Error>(
        _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
            thread.name = "livery.scrub"
            thread.start()
        }
        return try result.get()
    }

    /// The scrub's metrics: `livery_scrub_runs_total`, `livery_scrub_damaged{kind}` (what the last scrub found) and
    /// `livery_scrub_damage_found_total{kind}`.
    private struct ScrubSeries {
        let runs = Counter(label: "livery_scrub_runs_total")
        let damaged = Dictionary(
            uniqueKeysWithValues: StoreDamage.Kind.allCases.map {
                ($0, Gauge(label: "livery_scrub_damaged", dimensions: [("kind", $0.rawValue)]))
            })
        let found = Dictionary(
            uniqueKeysWithValues: StoreDamage.Kind.allCases.map {
                ($0, Counter(label: "livery_scrub_damage_found_total", dimensions: [("kind", $0.rawValue)]))
            })

        func count(_ report: StoreScrubReport) {
            runs.increment()
            for kind in StoreDamage.Kind.allCases {
                let count = report.damages.filter { $0.kind == kind }.count
                damaged[kind]?.record(count)
                if count > 0 { found[kind]?.increment(by: count) }
            }
        }
    }
}
