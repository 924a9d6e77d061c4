import Foundation
import SkinStore

extension PackageCache {
    /// Rehashes every built package in `directory` (`<data-dir>/packages`) that has a build record
    /// (`<sign>.zip.sha256`) and reports each whose file differs from it, naming the skin version the record says
    /// it was built from (`-` v0 for records older than that field). A record whose package file is absent is
    /// not damage: the file is built again when needed. Reads without taking anything from a running cache, so it
    /// runs beside `livery serve`. A missing folder is an empty cache.
    public static func scrub(directory: String) -> StoreScrubReport {
        var report = StoreScrubReport()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return report }
        for name in names.sorted() where name.hasSuffix(".zip.sha256") && !name.hasPrefix(".") {
            let packageName = String(name.dropLast(".sha256".count))
            let sign = String(packageName.dropLast(".zip".count))
            let path = directory + "/" + packageName
            let recordPath = directory + "/" + name
            let record = BuildRecord.read(recordPath, sign: sign)
            let skinID = record?.builtFrom?.skinID ?? "-"
            let version = record?.builtFrom?.version ?? 0
            guard let record else {
                report.damages.append(
                    StoreDamage(
                        kind: .package, skinID: skinID, version: version, location: name,
                        reason: "the build record does not parse or names another sign"))
                continue
            }
            let found: BuildOutcome?
            do {
                found = try summarizeExisting(at: path)
            } catch {
                report.damages.append(
                    StoreDamage(
                        kind: .package, skinID: skinID, version: version, location: packageName,
                        reason: "cannot be read: \(error)"))
                continue
            }
            guard let found else { continue }
            report.checkedPackages += 1
            if found.sha256 != record.sha256 || found.size != record.size {
                report.damages.append(
                    StoreDamage(
                        kind: .package, skinID: skinID, version: version, location: packageName,
                        reason:
                            "holds \(found.size) bytes hashing to \(found.sha256), but was built as \(record.size) bytes hashing to \(record.sha256)"
                    ))
            }
        }
        return report
    }
}
