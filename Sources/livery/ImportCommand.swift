import ArgumentParser
import Foundation
import LiveryJSON
import SkinDirectory
import SkinModel
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// `livery import --from auutheme|chameleon FILE DIR [--id] [--app] [--title]`: turns a theme written for
/// another client into a new Livery skin folder, reporting every value it could not carry over.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn an AUUTheme or Chameleon theme file into a new Livery skin folder.",
        discussion: """
            AUUTheme's flat colors/images/appearance and Chameleon's nested color/image/… become one module \
            "theme" of config.json (the rules: docs/IMPORT.md). Images are copied from the folder holding FILE \
            (PNG, JPEG, GIF, WebP files beside it) and from its resources/ folder (Chameleon's layout); only \
            those the theme references are kept. Every value that cannot be carried over is reported by its \
            name in FILE, and left out. DIR must not exist yet.

            Exit status: 0 the new skin validates (the report lists what was left out and any warnings); 1 it \
            does not (DIR is written anyway, with the report); 2 unusable input (FILE unreadable or not JSON, \
            DIR exists, a bad --id or --app).
            """)

    @Option(name: .customLong("from"), help: "The theme's format: auutheme or chameleon.")
    var format: String

    @Argument(help: "The theme file (JSON).")
    var file: String

    @Argument(help: "The new skin folder; must not exist yet.")
    var directory: String

    @Option(help: "The skin id. Default: the file name without extension, as an id (Theme 0.json → theme-0).")
    var id: String?

    @Option(help: "The app the skin is for. Default: demo.")
    var app: String?

    @Option(help: "The skin title. Default: the file name without extension.")
    var title: String?

    func validate() throws {
        guard ForeignThemeFormat(rawValue: format) != nil else {
            throw ValidationError(
                "--from must be one of \(ForeignThemeFormat.allCases.map(\.rawValue).joined(separator: ", ")), got '\(format)'."
            )
        }
        if let id, !SkinID.isValid(id) {
            throw ValidationError("--id '\(id)' is not a skin id: use lowercase letters, digits, '.', '_' and '-'.")
        }
        if let app, !SkinID.isValid(app) {
            throw ValidationError("--app '\(app)' is not an app id: use lowercase letters, digits, '.', '_' and '-'.")
        }
        if let title, title.isEmpty { throw ValidationError("--title must not be empty.") }
    }

    func run() throws {
        guard let format = ForeignThemeFormat(rawValue: format) else { throw ExitCode(2) }
        if (try? FileManager.default.attributesOfItem(atPath: directory)) != nil {
            CommandInput.fail(
                "\(directory): already exists; import writes a new skin folder.",
                fix: "Name a folder that does not exist yet.")
        }
        let document: JSONValue
        switch CommandInput.loadJSON(path: file) {
        case .success(let value): document = value
        case .failure(let problem): CommandInput.fail(problem.message, fix: problem.fix)
        }
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        guard let skinID = id.flatMap({ SkinID($0) }) ?? SkinID(deriving: stem) ?? SkinID("theme") else {
            throw ExitCode(2)
        }
        let manifest = SkinManifest(
            id: skinID, title: title ?? (stem.isEmpty ? skinID.rawValue : stem), app: app ?? "demo")
        var notes: [ImportNote] = []
        let images = Self.images(beside: file, notes: &notes)
        let result = ThemeImport(format: format, document: document, manifest: manifest, images: images)
        do {
            try Self.write(result.files, to: directory)
        } catch {
            CommandInput.fail(
                "\(directory): cannot write the skin: \(error.localizedDescription)",
                fix: "Check that its parent folder exists and is writable.")
        }
        notes += result.dropped
        var text =
            "Imported \(file) (\(format.rawValue)) into \(directory): skin '\(skinID)', app '\(manifest.app)', title '\(manifest.title)'.\n"
        if notes.isEmpty {
            text += "Every value was carried over.\n"
        } else {
            text += "Not carried over (\(notes.count)):\n" + notes.map { "  \($0.name): \($0.reason)\n" }.joined()
        }
        text += result.report.renderedText(name: directory)
        CommandInput.writeStandardOutput(Array(text.utf8))
        if !result.report.isValid { throw ExitCode(1) }
    }

    /// Image files beside `file` and every regular file under `resources/` next to it, by skin-relative name
    /// (a file of `resources/` lands at the skin's root, as Chameleon's image names expect). Symbolic links are
    /// never followed; they are noted.
    static func images(beside file: String, notes: inout [ImportNote]) -> [String: [UInt8]] {
        let folder =
            (file as NSString).deletingLastPathComponent.isEmpty ? "." : (file as NSString).deletingLastPathComponent
        var images: [String: [UInt8]] = [:]
        let resources = DirectorySkinSource(path: folder + "/resources")
        // The folder itself is a path from outside like any other: a link there (`resources -> elsewhere`) is not
        // followed, or files from anywhere would be carried into the skin.
        if let status = try? SystemPath.linkStatus(folder + "/resources"), status.st_mode & S_IFMT == S_IFLNK {
            notes.append(
                ImportNote(name: "resources", reason: "a symbolic link; not followed, nothing under it copied"))
        } else if let listed = try? resources.listFiles() {
            for entry in listed {
                guard entry.kind == .regular, entry.nameIsValidUTF8 else {
                    notes.append(
                        ImportNote(
                            name: "resources/" + entry.path, reason: "not a regular file with a UTF-8 name; not copied")
                    )
                    continue
                }
                if let bytes = try? resources.read(entry.path) { images[entry.path] = bytes }
            }
        }
        let beside = DirectorySkinSource(path: folder)
        let extensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp"]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? [] {
            guard extensions.contains((name as NSString).pathExtension.lowercased()), images[name] == nil else {
                continue
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else {
                notes.append(ImportNote(name: name, reason: "not a regular file (a link or folder); not copied"))
                continue
            }
            if let bytes = try? beside.read(name) { images[name] = bytes }
        }
        return images
    }

    /// Writes `files` into the new folder `directory` (created with any missing parents).
    static func write(_ files: [String: [UInt8]], to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let path = directory + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
        }
    }
}
