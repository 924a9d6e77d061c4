import ArgumentParser
import LiveryJSON
import SkinDirectory
import SkinModel

/// `livery resolve DIR KEY`: shows how an app would look up one key of the skin's `config.json`, printing the
/// chain of identifiers it walks (the key, each dotted parent, then `__default__`).
struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Print the fallback chain an app walks to find KEY in a skin's config.json.",
        discussion: """
            KEY is MODULE/SECTION/IDENTIFIER, such as home/colors/color.background.tableview (a leading '/' is \
            accepted, so JSON pointers from `livery validate` can be pasted). The identifier falls back to its \
            dotted parents, then to __default__, within the same module and section.
            Exit status: 0 when a value is found, 1 when nothing on the chain is set (the app keeps its own \
            default), 2 when config.json cannot be read or parsed.
            """)

    @Argument(help: "The skin folder.")
    var directory: String

    @Argument(help: ArgumentHelp("The key to resolve, MODULE/SECTION/IDENTIFIER.", valueName: "key"))
    var key: String

    @Option(name: .long, help: "The appearance whose config is used: light or dark (dark applies the dark overrides).")
    var appearance: String = Appearance.light.rawValue

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        guard ConfigKey(parsing: key) != nil else {
            throw ValidationError(
                "'\(key)' is not MODULE/SECTION/IDENTIFIER with SECTION one of colors, images, values, resources and no empty dotted part."
            )
        }
        guard Appearance(rawValue: appearance) != nil else {
            throw ValidationError("--appearance must be light or dark, not '\(appearance)'.")
        }
    }

    func run() throws {
        guard let configKey = ConfigKey(parsing: key), let appearance = Appearance(rawValue: appearance) else {
            throw ExitCode(2)
        }
        let bytes: [UInt8]
        do {
            bytes = try DirectorySkinSource(path: directory).read("config.json")
        } catch {
            CommandInput.fail(
                "\(directory)/config.json: \(error).", fix: "Pass a skin folder that holds a readable config.json.")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            CommandInput.fail(
                "\(directory)/config.json:\(error.line):\(error.column): not valid JSON: \(error.message).",
                fix: "Fix config.json (run `livery validate \(directory)` for the full report).")
        }
        let effective = SkinConfig.effectiveDocument(document, for: appearance)
        let resolution = IdentifierResolver.resolve(key: configKey, in: effective)
        if json {
            var object = JSONObject()
            object["key"] = .string(configKey.description)
            object["appearance"] = .string(appearance.rawValue)
            object["chain"] = .array(resolution.chain.map { .string($0.description) })
            object["resolvedBy"] = resolution.resolvedKey.map { .string($0.description) } ?? .null
            object["value"] = resolution.value ?? .null
            CommandInput.writeStandardOutput(JSONValue.object(object).serialized(.pretty))
        } else {
            let width = resolution.chain.map(\.description.count).max() ?? 0
            var lines: [String] = []
            for step in resolution.chain {
                let padded = step.description + String(repeating: " ", count: width - step.description.count)
                if step == resolution.resolvedKey, let value = resolution.value {
                    lines.append("\(padded)  = \(value.compactText)")
                } else {
                    lines.append("\(padded)  (not set)")
                }
            }
            if resolution.value == nil { lines.append("nothing on the chain is set: the app keeps its own default") }
            CommandInput.writeStandardOutput(Array((lines.joined(separator: "\n") + "\n").utf8))
        }
        if resolution.value == nil { throw ExitCode(1) }
    }
}
