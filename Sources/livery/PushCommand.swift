import ArgumentParser
import Foundation
import SkinModel
import SystemCalls
import ZipArchive
import ZipReading

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `livery push DIR --server URL`: zips a skin folder, uploads it as a new version, prints the report.
struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Upload a skin folder as a new version (it is stored, not released).",
        discussion: """
            Zips DIR (its files at the archive's root; hidden files and folders such as .git or .DS_Store are left \
            out), uploads it to POST /admin/v1/skins with the token in LIVERY_TOKEN, and prints the new version \
            number, its package signs and every warning; an invalid skin prints the full report. Release it \
            afterwards with `livery release`.

            Exit status: 0 stored; 1 refused by the server (invalid skin: the report says what to fix; 401/403: \
            the token; app_mismatch: the skin id exists under another app, --force moves it); 2 unusable input (folder unreadable, a symbolic link inside, LIVERY_TOKEN unset, bad \
            --server); 3 server unreachable or failing.
            """)

    @Argument(help: "The skin folder (holding skin.json, config.json and the assets).")
    var directory: String

    @Flag(
        help: "Store the version even though the skin id exists under another app (otherwise refused as app_mismatch).")
    var force = false

    @OptionGroup var server: ServerOptions

    func run() throws {
        try OpsCommand.run { () throws(AdminClientError) in
            let session = try server.session()
            let (archive, skipped) = try Self.zip(directory)
            for name in skipped { CommandInput.writeStandardError(Array("livery: left out hidden \(name)\n".utf8)) }
            let answer = try session.request("POST", "/skins" + (force ? "?force=true" : ""), zip: archive)
            let body = answer.json.objectValue
            let error = body?["error"]?.objectValue
            if answer.status == 422, error?["code"]?.stringValue == "invalid_skin",
                let issues = error?["details"]?.objectValue?["report"]?.objectValue?["issues"]?.arrayValue
            {
                let text = issues.map(OpsCommand.render(issue:)).joined(separator: "\n\n")
                throw .rejected("\(directory): INVALID, the server stored nothing\n\n\(text)")
            }
            guard (200..<300).contains(answer.status), let body else {
                if (500..<600).contains(answer.status) {
                    throw .serverFailed(
                        AdminSession.describe(
                            answer.status, answer.json, hint: "the server failed; its log has the details"))
                }
                throw .rejected(
                    AdminSession.describe(answer.status, answer.json, hint: AdminSession.hint(answer.status)))
            }
            let id = body["skinId"]?.stringValue ?? "?"
            let version = body["version"]?.intValue ?? 0
            let stored =
                body["unchanged"] == .bool(true)
                ? "unchanged: version \(version) already holds these files, nothing stored"
                : "stored as version \(version)"
            var lines = [
                "\(id): \(stored) (\(body["fileCount"]?.intValue ?? 0) files, \(body["size"]?.intValue ?? 0) bytes)"
            ]
            if let signs = body["signs"]?.objectValue {
                lines.append("package signs:")
                for member in signs { lines.append("  \(member.key)  \(member.value.stringValue ?? "")") }
            }
            let issues = body["report"]?.objectValue?["issues"]?.arrayValue ?? []
            lines.append("\(issues.count) warning\(issues.count == 1 ? "" : "s")")
            for issue in issues { lines.append(""); lines.append(OpsCommand.render(issue: issue)) }
            lines.append("")
            lines.append(
                "release it with: livery release \(id) --version \(version) --from <ISO 8601> --until <ISO 8601>")
            OpsCommand.print(lines.joined(separator: "\n"))
        }
    }

    /// The folder as a zip archive in memory (files at the root), and the hidden names left out.
    ///
    /// - Throws: `.usage` naming the file when the folder cannot be read or holds a symbolic link or a special file.
    static func zip(_ directory: String) throws(AdminClientError) -> (archive: [UInt8], skipped: [String]) {
        var entries: [ZipEntry] = []
        var skipped: [String] = []
        try collect(directory, relative: "", depth: 0, into: &entries, skipped: &skipped)
        guard !entries.isEmpty else { throw .usage("\(directory): no files to upload") }
        var output = ZipMemoryOutput()
        do {
            try ZipArchiveWriter.write(entries, to: &output)
        } catch {
            throw .usage("\(directory): cannot zip the folder: \(error)")
        }
        return (output.bytes, skipped)
    }

    private static func collect(
        _ root: String, relative: String, depth: Int, into entries: inout [ZipEntry], skipped: inout [String]
    ) throws(AdminClientError) {
        guard depth < 32 else { throw .usage("\(root)/\(relative): folders nest too deeply") }
        let folder = relative.isEmpty ? root : root + "/" + relative
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            throw .usage("\(folder): cannot read the folder (does it exist?)")
        }
        for name in names {
            let path = relative.isEmpty ? name : relative + "/" + name
            if name.hasPrefix(".") {
                skipped.append(path)
                continue
            }
            let info: stat
            do throws(SystemCallError) {
                info = try SystemPath.linkStatus(root + "/" + path)
            } catch {
                throw .usage("\(root)/\(path): cannot read it (\(error.reason))")
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                try collect(root, relative: path, depth: depth + 1, into: &entries, skipped: &skipped)
            case S_IFREG:
                do {
                    entries.append(ZipEntry(name: try ZipEntryName(path), source: .file(path: root + "/" + path)))
                } catch {
                    throw .usage("\(root)/\(path): the name cannot go into a zip archive: \(error)")
                }
            case S_IFLNK:
                throw .usage(
                    "\(root)/\(path): is a symbolic link; replace it with a copy of the file (uploads refuse links)")
            default:
                throw .usage("\(root)/\(path): is not a regular file; remove it from the skin folder")
            }
        }
    }
}
