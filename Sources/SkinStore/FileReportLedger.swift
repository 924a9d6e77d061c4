import Foundation
import LiveryCrypto
import LiveryJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file store's `ReportLedger`: counted reports appended to `reports.log` in the store's folder, one JSON line
/// each, and held in memory for the figures.
///
/// ## Files (created by the first report, so a store nobody reports to looks as it always did)
/// ```
/// <directory>/reports.key   the 32-byte secret device ids are hashed under (written durably once)
/// <directory>/reports.log   one line per counted report: {"sign","device","outcome","stage"?,"skin","version",
///                           "variant","platform","appVersion","at","recorded"} (times in ms since 1970)
/// ```
///
/// ## Durability
/// Reports wait in a queue; one writer on its own thread takes everything waiting, appends the lines of the reports
/// that count (dedup against what is committed and within the group), fsyncs once, and only then counts them in
/// memory and answers every caller of the group (group commit: one fsync for many requests). A crash can leave a torn
/// last line (no newline, or bytes that are not a whole line): opening cuts it off, so it is never counted; a damaged
/// line followed by good ones is not a torn tail and is refused (`corruptFile`). A failed write is cut off again
/// before the next one, so a later line never follows a partial one.
///
/// ## Retention
/// `expire(recordedBefore:)` rewrites the log without the expired lines (atomically: a new file, fsynced, renamed over
/// the old one, the folder fsynced) on the writer's thread, between groups, and swaps the memory figures at once, so
/// memory and disk hold the same reports and a crash leaves the log before or after, never between.
///
/// The store's folder lock keeps a second process out, as for the rest of the store.
public final class FileReportLedger: ReportLedger, Sendable {
    /// The store's folder.
    public let directory: String
    var logPath: String { directory + "/reports.log" }
    var keyPath: String { directory + "/reports.key" }

    private let clock: @Sendable () -> Date
    private let state: Mutex<State>
    private let writer: Mutex<Writer>
    /// The writer's thread (serial, so one group at a time; Dispatch gives it a thread even when the cooperative
    /// pool is busy).
    private let queue = DispatchQueue(label: "livery.store.reports")

    /// One counted report as memory keeps it.
    struct Entry: Sendable {
        var version: Int
        var platform: String
        var appVersion: String
        var device: String
        var outcome: ReportOutcome
        var stage: ReportStage?
        var recorded: Int64
    }

    private struct State {
        /// Dedup keys (`ReportLedgers.dedupKey`) of every counted report.
        var counted: Set<String> = []
        /// Counted reports by skin id.
        var entries: [String: [Entry]] = [:]
        var waiting: [Waiting] = []
        var writing = false

        /// Counts a line read back from the log, unless its device already counted for its sign and outcome.
        mutating func count(_ parsed: (skinID: String, key: String, entry: Entry)) {
            if counted.insert(parsed.key).inserted { entries[parsed.skinID, default: []].append(parsed.entry) }
        }
    }

    private struct Waiting {
        let reports: [LedgerReport]
        let continuation: CheckedContinuation<Result<[LedgerReport], StoreError>, Never>
    }

    /// What only the writer thread touches.
    private struct Writer {
        var fd: Int32?
        var secret: [UInt8]?
        /// The log's length up to its last committed line.
        var committedLength: Int
        var closed = false
    }

    /// Opens the ledger of the store in `directory` (whose lock the caller holds): reads the log, cutting off a
    /// torn tail, and the secret.
    ///
    /// - Throws: `corruptFile` for a damaged line followed by good ones, a key file of the wrong size, or a log
    ///   without its key; `io`.
    init(directory: String, clock: @escaping @Sendable () -> Date) throws(StoreError) {
        self.directory = directory
        self.clock = clock
        var state = State()
        let logPath = directory + "/reports.log"
        let keyPath = directory + "/reports.key"
        let secret = try FileIO.readIfExists(keyPath)
        if let secret, secret.count != ReportLedgers.secretLength {
            throw .corruptFile(path: keyPath, reason: "the report key must be \(ReportLedgers.secretLength) bytes")
        }
        var length = 0
        if let bytes = try FileIO.readIfExists(logPath) {
            guard secret != nil else {
                throw .corruptFile(path: keyPath, reason: "reports.log exists but its key file is missing")
            }
            length = try Self.read(bytes, path: logPath, into: &state)
            if length < bytes.count {
                let fd = try FileIO.openFile(logPath, O_WRONLY)
                defer { FileIO.closeFile(fd) }
                try FileIO.truncate(fd, to: length, path: logPath)
                try FileIO.sync(fd, path: logPath)
            }
        }
        self.state = Mutex(state)
        self.writer = Mutex(Writer(fd: nil, secret: secret, committedLength: length))
    }

    /// Stops recording (later calls throw `closed`) once the group being written is done.
    func close() {
        queue.sync {
            writer.withLock { writer in
                writer.closed = true
                if let fd = writer.fd { FileIO.closeFile(fd) }
                writer.fd = nil
            }
        }
    }

    // MARK: ReportLedger

    public func record(_ reports: [LedgerReport]) async throws(StoreError) -> [LedgerReport] {
        if reports.isEmpty { return [] }
        let result = await withCheckedContinuation { continuation in
            let start = state.withLock { state in
                state.waiting.append(Waiting(reports: reports, continuation: continuation))
                if state.writing { return false }
                state.writing = true
                return true
            }
            if start { queue.async { self.writeWaiting() } }
        }
        return try result.get()
    }

    public func tallies(skinID: String) async throws(StoreError) -> [ReportTally] {
        let entries = state.withLock { $0.entries[skinID] ?? [] }
        var counts: [ReportTally: Int] = [:]
        for entry in entries {
            let key = ReportTally(
                version: entry.version, platform: entry.platform, appVersion: entry.appVersion, outcome: entry.outcome,
                stage: entry.stage, hour: StoreTime.date(ReportLedgers.hour(ofMillis: entry.recorded) * 3_600_000),
                count: 0)
            counts[key, default: 0] += 1
        }
        return counts.map { key, count in
            var tally = key
            tally.count = count
            return tally
        }
    }

    public func deviceCounts(skinID: String, version: Int, since: Date) async throws(StoreError) -> ReportDeviceCounts {
        let from = StoreTime.millis(since)
        let entries = state.withLock { $0.entries[skinID] ?? [] }
        var reporting = Set<String>()
        var failed = Set<String>()
        var byStage: [ReportStage: Set<String>] = [:]
        for entry in entries where entry.version == version && entry.recorded >= from {
            reporting.insert(entry.device)
            if entry.outcome == .failed {
                failed.insert(entry.device)
                if let stage = entry.stage { byStage[stage, default: []].insert(entry.device) }
            }
        }
        return ReportDeviceCounts(
            reporting: reporting.count, failed: failed.count, failedByStage: byStage.mapValues(\.count))
    }

    public func expire(recordedBefore cutoff: Date) async throws(StoreError) -> Int {
        let limit = StoreTime.millis(cutoff)
        let due = state.withLock { state in state.entries.values.contains { $0.contains { $0.recorded < limit } } }
        guard due else { return 0 }
        return try await onWriterThread { writer throws(StoreError) in try self.compact(before: limit, &writer) }
    }

    public func exportAll() async throws(StoreError) -> ReportExport {
        try await onWriterThread { writer throws(StoreError) in
            let reports = try self.committedLines(writer).compactMap(Self.storedReport)
            return ReportExport(secret: writer.secret, reports: reports)
        }
    }

    /// Runs `work` on the writer's thread, between groups, with the writer (`closed` once the ledger is closed).
    private func onWriterThread<T: Sendable>(
        _ work: @escaping @Sendable (inout Writer) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let result = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(
                    returning: Result { () throws(StoreError) -> T in
                        try self.writer.withLock { writer throws(StoreError) -> T in
                            if writer.closed { throw .closed }
                            return try work(&writer)
                        }
                    })
            }
        }
        return try result.get()
    }

    /// The log's lines up to its last committed one, without their newlines.
    private func committedLines(_ writer: Writer) throws(StoreError) -> [[UInt8]] {
        let bytes = try FileIO.readIfExists(logPath) ?? []
        return bytes.prefix(writer.committedLength).split(separator: UInt8(ascii: "\n")).map { Array($0) }
    }

    // MARK: Writing

    /// Rewrites the log without the lines recorded before `limit` (ms since 1970) and rebuilds the memory figures
    /// from what is kept (on `queue`, so no group is being written). Returns how many lines were removed.
    private func compact(before limit: Int64, _ writer: inout Writer) throws(StoreError) -> Int {
        var kept: [UInt8] = []
        var fresh = State()
        var removed = 0
        for line in try committedLines(writer) {
            if let parsed = Self.parse(line) {
                if parsed.entry.recorded < limit {
                    removed += 1
                    continue
                }
                fresh.count(parsed)
            }
            // A line that does not parse is kept as it is: opening judges it as it would have.
            kept += line
            kept.append(UInt8(ascii: "\n"))
        }
        guard removed > 0 else { return 0 }
        // The descriptor is of the old file: appends must reopen whichever file the name now holds.
        if let fd = writer.fd { FileIO.closeFile(fd) }
        writer.fd = nil
        do throws(StoreError) {
            try FileIO.writeAtomically(kept, to: logPath)
        } catch {
            // The rename may have happened before the failure (a folder fsync): go on from the file the name
            // holds, or stop writing when that cannot be told, rather than append at a wrong offset.
            switch Result<[UInt8]?, StoreError>(catching: { () throws(StoreError) in
                try FileIO.readIfExists(logPath)
            }) {
            case .success(let now) where now == kept: break
            case .success(let now) where now.map({ $0.count >= writer.committedLength }) == true: throw error
            default:
                writer.closed = true
                throw error
            }
        }
        writer.committedLength = kept.count
        state.withLock { state in
            state.counted = fresh.counted
            state.entries = fresh.entries
        }
        return removed
    }

    /// Writes every waiting group until none is left (on `queue`).
    private func writeWaiting() {
        while true {
            let group: [Waiting]? = state.withLock { state in
                if state.waiting.isEmpty {
                    state.writing = false
                    return nil
                }
                defer { state.waiting = [] }
                return state.waiting
            }
            guard let group else { return }
            let outcome = write(group)
            for (index, waiting) in group.enumerated() {
                waiting.continuation.resume(returning: outcome.map { $0[index] })
            }
        }
    }

    /// Appends and fsyncs the reports of `group` that count; the counted ones per member of the group.
    private func write(_ group: [Waiting]) -> Result<[[LedgerReport]], StoreError> {
        Result { () throws(StoreError) -> [[LedgerReport]] in
            try writer.withLock { writer throws(StoreError) -> [[LedgerReport]] in
                if writer.closed { throw .closed }
                let secret = try self.secret(&writer)
                let recorded = StoreTime.millis(clock())
                var seen = Set<String>()
                var counted: [[LedgerReport]] = []
                var lines: [UInt8] = []
                var additions: [(skinID: String, key: String, entry: Entry)] = []
                for waiting in group {
                    var mine: [LedgerReport] = []
                    for report in waiting.reports {
                        let device = ReportLedgers.deviceHash(report.deviceID, secret: secret)
                        let key = ReportLedgers.dedupKey(sign: report.sign, device: device, outcome: report.outcome)
                        guard !seen.contains(key), !state.withLock({ $0.counted.contains(key) }) else { continue }
                        seen.insert(key)
                        mine.append(report)
                        lines += Self.line(report, device: device, recorded: recorded)
                        additions.append(
                            (
                                report.skinID, key,
                                Entry(
                                    version: report.version, platform: report.platform, appVersion: report.appVersion,
                                    device: device, outcome: report.outcome, stage: report.stage, recorded: recorded)
                            ))
                    }
                    counted.append(mine)
                }
                if !lines.isEmpty {
                    try append(lines, writer: &writer)
                    state.withLock { state in
                        for addition in additions {
                            state.counted.insert(addition.key)
                            state.entries[addition.skinID, default: []].append(addition.entry)
                        }
                    }
                }
                return counted
            }
        }
    }

    /// The secret, written durably first if this store has none yet.
    private func secret(_ writer: inout Writer) throws(StoreError) -> [UInt8] {
        if let secret = writer.secret { return secret }
        let made: [UInt8]
        do {
            made = try Secrets.randomBytes(count: ReportLedgers.secretLength)
        } catch {
            throw .io(operation: "RAND_bytes", path: keyPath, errno: 0)
        }
        try FileIO.writeAtomically(made, to: keyPath)
        writer.secret = made
        return made
    }

    /// Appends `bytes` after the committed end and fsyncs; on failure cuts the log back to the committed end.
    private func append(_ bytes: [UInt8], writer: inout Writer) throws(StoreError) {
        let fd: Int32
        if let open = writer.fd {
            fd = open
        } else {
            fd = try FileIO.openFile(logPath, O_WRONLY | O_CREAT)
            writer.fd = fd
            // The file may be new: its name must survive a power loss too.
            try FileIO.syncDirectory(directory)
        }
        do throws(StoreError) {
            try FileIO.writeAll(fd, bytes, offset: writer.committedLength, path: logPath)
            try FileIO.sync(fd, path: logPath)
            writer.committedLength += bytes.count
        } catch {
            if (try? FileIO.truncate(fd, to: writer.committedLength, path: logPath)) == nil {
                // The tail cannot be cut: stop writing rather than append after a partial line.
                FileIO.closeFile(fd)
                writer.fd = nil
                writer.closed = true
            }
            throw error
        }
    }

    // MARK: The log's lines

    static func line(_ report: LedgerReport, device: String, recorded: Int64) -> [UInt8] {
        var members: [(String, [UInt8])] = [
            ("sign", JSONWriter.string(report.sign)), ("device", JSONWriter.string(device)),
            ("outcome", JSONWriter.string(report.outcome.rawValue))
        ]
        if let stage = report.stage { members.append(("stage", JSONWriter.string(stage.rawValue))) }
        members += [
            ("skin", JSONWriter.string(report.skinID)), ("version", JSONWriter.number(report.version)),
            ("variant", JSONWriter.string(report.variant)), ("platform", JSONWriter.string(report.platform)),
            ("appVersion", JSONWriter.string(report.appVersion)),
            ("at", JSONWriter.number(Int(StoreTime.millis(report.at)))), ("recorded", JSONWriter.number(Int(recorded)))
        ]
        return JSONWriter.object(members) + [UInt8(ascii: "\n")]
    }

    /// Reads the lines of `bytes` into `state`; returns the length of the part to keep (everything up to the first
    /// torn or damaged line, when nothing good follows it).
    private static func read(_ bytes: [UInt8], path: String, into state: inout State) throws(StoreError) -> Int {
        var start = 0
        var firstBad: (offset: Int, line: Int)?
        var lineNumber = 0
        while start < bytes.count {
            lineNumber += 1
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                // A last line without its newline was never acknowledged.
                return firstBad?.offset ?? start
            }
            if let parsed = parse(Array(bytes[start..<end])) {
                if let bad = firstBad {
                    throw .corruptFile(path: path, reason: "line \(bad.line) is damaged and good lines follow it")
                }
                state.count(parsed)
            } else if firstBad == nil {
                firstBad = (start, lineNumber)
            }
            start = end + 1
        }
        return firstBad?.offset ?? start
    }

    private static func parse(_ line: [UInt8]) -> (skinID: String, key: String, entry: Entry)? {
        guard let report = storedReport(line) else { return nil }
        let entry = Entry(
            version: report.version, platform: report.platform, appVersion: report.appVersion, device: report.device,
            outcome: report.outcome, stage: report.stage, recorded: report.recordedAt)
        return (
            report.skinID, ReportLedgers.dedupKey(sign: report.sign, device: report.device, outcome: report.outcome),
            entry
        )
    }

    /// One line of the log, or nil when it is not a whole, well-formed report line.
    private static func storedReport(_ line: [UInt8]) -> StoredReport? {
        guard let object = (try? JSONValue.parse(line))?.objectValue,
            let sign = object["sign"]?.stringValue, let device = object["device"]?.stringValue,
            let outcome = object["outcome"]?.stringValue.flatMap(ReportOutcome.init(rawValue:)),
            let skinID = object["skin"]?.stringValue, let version = object["version"]?.intValue,
            let platform = object["platform"]?.stringValue, let appVersion = object["appVersion"]?.stringValue,
            let recorded = object["recorded"]?.intValue
        else { return nil }
        let stage = object["stage"]?.stringValue.flatMap(ReportStage.init(rawValue:))
        if outcome == .failed, stage == nil { return nil }
        return StoredReport(
            sign: sign, device: device, outcome: outcome, stage: stage, skinID: skinID, version: version,
            variant: object["variant"]?.stringValue ?? "", platform: platform, appVersion: appVersion,
            reportedAt: Int64(object["at"]?.intValue ?? recorded), recordedAt: Int64(recorded))
    }
}
