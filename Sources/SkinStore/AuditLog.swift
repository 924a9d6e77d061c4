import Foundation
import LiveryJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The append-only audit log file (`audit.log`): one JSON object per line, line N holding change N.
///
/// Appends go to the committed end of the file with `pwrite` and are fsync'd before the state record that
/// commits them is renamed into place. So on disk the log holds every committed change, plus at most one more
/// line (complete or torn) for a change whose state record never landed: changes are serialized, and a failed
/// append is truncated away before the next one. `load` drops that line and fails on
/// anything else that does not fit: a complete line that does not parse, a gap, or fewer lines than the state's
/// revision.
final class AuditLog {
    let path: String
    private let fd: Int32
    /// Length of the file up to and including the last committed line.
    private var committedLength: Int
    /// True when bytes past `committedLength` may exist (an append that was not committed).
    private var hasUncommittedTail = false

    /// Opens (creating if needed) the log at `path` and reconciles it with a state at `revision`, returning the
    /// committed entries. Truncates a torn or uncommitted tail durably.
    static func open(path: String, revision: Int) throws(StoreError) -> (AuditLog, [AuditEntry]) {
        let existed = try FileIO.fileSize(path) != nil
        let fd = try FileIO.openFile(path, O_RDWR | O_CREAT)
        do throws(StoreError) {
            if !existed { try FileIO.syncDirectory(FileIO.parent(of: path)) }
            let bytes = try FileIO.readIfExists(path) ?? []
            let (entries, length) = try parse(bytes, path: path, revision: revision)
            if length != bytes.count {
                try FileIO.truncate(fd, to: length, path: path)
                try FileIO.sync(fd, path: path)
            }
            return (AuditLog(path: path, fd: fd, committedLength: length), entries)
        } catch {
            FileIO.closeFile(fd)
            throw error
        }
    }

    private var pendingLength = 0

    private init(path: String, fd: Int32, committedLength: Int) {
        self.path = path
        self.fd = fd
        self.committedLength = committedLength
    }

    deinit { FileIO.closeFile(fd) }

    /// The committed entries in `bytes` and the length they occupy, for a state at `revision`.
    static func parse(_ bytes: [UInt8], path: String, revision: Int) throws(StoreError) -> ([AuditEntry], Int) {
        var entries = [AuditEntry]()
        var lineStarts = [Int]()
        var start = 0
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                break  // A torn last line: an append interrupted before its newline; never committed.
            }
            let line = bytes[start..<end]
            let lineNumber = entries.count + 1
            let record: Record
            do throws(StoredObject.Fault) {
                record = try Record(Array(line))
            } catch {
                throw .corruptFile(path: path, reason: "line \(lineNumber) is not an audit entry: \(error.text)")
            }
            guard record.seq == lineNumber else {
                throw .corruptFile(path: path, reason: "line \(lineNumber) holds sequence \(record.seq)")
            }
            entries.append(record.entry)
            lineStarts.append(start)
            start = end + 1
        }
        var length = start
        if entries.count == revision + 1 {
            // Appended, but the process stopped before the state record committed it.
            entries.removeLast()
            length = lineStarts[entries.count]
        }
        guard entries.count == revision else {
            throw .corruptFile(
                path: path,
                reason: "holds \(entries.count) committed entries but the state is at revision \(revision)")
        }
        return (entries, length)
    }

    /// Writes `entry` after the committed entries and fsyncs it. The entry counts as committed only after
    /// `commit()`; a later `append` without `commit` overwrites it.
    func append(_ entry: AuditEntry) throws(StoreError) {
        if hasUncommittedTail {
            try FileIO.truncate(fd, to: committedLength, path: path)
        }
        hasUncommittedTail = true
        let line = Record(entry).encodedLine()
        try FileIO.writeAll(fd, line, offset: committedLength, path: path)
        try FileIO.sync(fd, path: path)
        pendingLength = committedLength + line.count
    }

    /// Marks the last appended entry as committed (its state record is in place).
    func commit() {
        committedLength = pendingLength
        hasUncommittedTail = false
    }

    /// The on-disk form of one entry: one line of compact JSON, keys sorted, `before` and `after` base64, absent
    /// ones left out (what `JSONEncoder` with sorted keys wrote before). Written by `encodedLine()` and read by
    /// `init(_:)`, with LiveryJSON.
    struct Record {
        var seq: Int
        var time: Int64
        var actor: String
        var action: String
        var skin: String?
        var before: [UInt8]?
        var after: [UInt8]?

        init(_ entry: AuditEntry) {
            seq = entry.sequence
            time = StoreTime.millis(entry.time)
            actor = entry.actor
            action = entry.action
            skin = entry.skinID
            before = entry.before
            after = entry.after
        }

        /// The record on one line (without its newline).
        init(_ line: [UInt8]) throws(StoredObject.Fault) {
            let object = try StoredObject.parse(line)
            seq = try object.int("seq")
            time = Int64(try object.int("time"))
            actor = try object.string("actor")
            action = try object.string("action")
            skin = try object.optionalString("skin")
            before = try object.optionalBytes("before")
            after = try object.optionalBytes("after")
        }

        var entry: AuditEntry {
            AuditEntry(
                sequence: seq, time: StoreTime.date(time), actor: actor, action: action, skinID: skin, before: before,
                after: after)
        }

        /// One line: compact JSON (which never contains a raw newline) and `\n`.
        func encodedLine() -> [UInt8] {
            var object = JSONObject()
            object["action"] = .string(action)
            object["actor"] = .string(actor)
            if let after { object["after"] = .base64(after) }
            if let before { object["before"] = .base64(before) }
            object["seq"] = .int(seq)
            if let skin { object["skin"] = .string(skin) }
            object["time"] = .int(Int(time))
            return JSONValue.object(object).serialized(.compact) + [UInt8(ascii: "\n")]
        }
    }
}
