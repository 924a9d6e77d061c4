import ArgumentParser
import Foundation
import LiveryJSON
import LiveryKit
import LiveryProtocol
import SkinModel

/// `livery-phone`: one app install on the command line, built on LiveryKit, so ops, tests and app developers see
/// what a phone sees. Prints exactly one line of compact JSON on standard output; diagnostics go to standard error.
///
/// Exit status: 0 refreshed (or the rules say no skin, offline too); 1 an error `code`; 2 bad arguments;
/// 3 with `--crash-before-applied`, after printing the line (an app that crashed while drawing).
struct LiveryPhone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "livery-phone",
        abstract:
            "Play one app install against a Livery server: refresh, apply, confirm, print what the app would draw.",
        discussion: """
            Prints one line: {"skinId", "skinSign", "themeId", "values", "error", "source", "reported"}; source is \
            "catalog" when the stored catalog decided, "poll" otherwise; reported is how many outcome reports the \
            server took in this run (skins applied or failed, a crash found at launch). Each --get key \
            (MODULE/SECTION/IDENTIFIER) is resolved with the dotted fallback: a colour as #RRGGBBAA (or "random"), \
            an image as the absolute path of its file (a solid-colour image as #RRGGBBAA, a remote one as its URL), \
            a resource as its absolute path, a value as its JSON value, null when nothing on the chain is set.

            Exit status: 0 refreshed (or no skin applies); 1 an error code; 2 bad arguments; 3 after printing the \
            line with --crash-before-applied.
            """)

    @Option(help: "The server's base URL, such as http://127.0.0.1:8080.")
    var server: String
    @Option(help: "The app id.")
    var app: String
    @Option(help: "ios, android, harmony or macos.")
    var platform: String
    @Option(name: .customLong("app-version"), help: "The app's version, such as 7.2.0.")
    var appVersion: String
    @Option(name: .customLong("device-id"), help: "The device id (decides rollouts).")
    var deviceID: String
    @Option(help: "The storage folder this install owns (created if missing).")
    var storage: String
    @Option(help: "The screen scale: 1, 2 or 3.")
    var scale: Int = 3
    @Option(help: "light or dark.")
    var appearance: String = "light"
    @Option(name: .customLong("public-key"), help: "A public key file as `livery keys create` prints it (repeatable).")
    var publicKeys: [String] = []
    @Option(help: "The clock's instant (ISO 8601 with an offset), instead of now.")
    var at: String?
    @Flag(
        help: "No network: decide from what is stored (the catalog, or the last poll's skins) at the clock's instant.")
    var offline = false
    @Option(name: .customLong("get"), help: "A key MODULE/SECTION/IDENTIFIER to print (repeatable).")
    var keys: [String] = []
    @Option(help: "Choose this theme id, or none.")
    var theme: String?
    @Flag(name: .customLong("crash-before-applied"), help: "Print the line, then exit 3 without confirming the skin.")
    var crashBeforeApplied = false
    @Flag(name: .customLong("no-reports"), help: "Record and send no outcome reports.")
    var noReports = false

    func validate() throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--server '\(server)' is not an http(s) URL")
        }
        guard Platform(rawValue: platform.lowercased()) != nil else {
            throw ValidationError("--platform '\(platform)' is not one of ios, android, harmony, macos")
        }
        guard (1...3).contains(scale) else { throw ValidationError("--scale must be 1, 2 or 3") }
        guard Appearance(rawValue: appearance.lowercased()) != nil else {
            throw ValidationError("--appearance must be light or dark")
        }
        if let at, ISO8601Instant.parse(at) == nil {
            throw ValidationError(
                "--at '\(at)' is not an ISO 8601 instant with an offset, such as 2026-12-24T20:00:00+08:00")
        }
        for key in keys where ConfigKey(parsing: key) == nil {
            throw ValidationError(
                "--get '\(key)' is not MODULE/SECTION/IDENTIFIER (sections: colors, images, values, resources)")
        }
        if let theme, theme.isEmpty { throw ValidationError("--theme is empty: give a theme id or none") }
    }

    func run() async throws {
        var trusted: [String: String] = [:]
        for path in publicKeys {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("--public-key \(path): cannot read the file")
            }
            do {
                let file = try PublicKeyFile.parse([UInt8](data))
                trusted[file.keyID.text] = file.base64
            } catch {
                throw ValidationError(
                    "--public-key \(path): \(error.description); give the file `livery keys create` printed")
            }
        }
        let instant = at.flatMap(ISO8601Instant.parse)
        let look = Appearance(rawValue: appearance.lowercased()) ?? .light
        let configuration = LiveryConfiguration(
            serverURL: URL(string: server) ?? URL(fileURLWithPath: "/"), appID: app,
            platform: Platform(rawValue: platform.lowercased()) ?? .ios, appVersion: appVersion, scale: scale,
            appearance: PackageAppearance(look), deviceID: deviceID, trustedKeys: trusted,
            storage: URL(fileURLWithPath: storage, isDirectory: true), clock: { instant ?? Date() },
            reportsOutcomes: !noReports)

        var failure: LiveryError?
        let client: LiveryClient
        do {
            client = try LiveryClient(configuration: configuration)
        } catch {
            Self.report(error)
            Self.printLine(
                skin: nil, themeID: nil, values: keys.map { ($0, JSONValue.null) }, error: error, source: .poll,
                reported: 0)
            throw ExitCode(crashBeforeApplied ? 3 : 1)
        }
        if !offline {
            do { try await client.refresh() } catch {
                Self.report(error)
                failure = error
            }
        }
        if let theme {
            do throws(LiveryError) {
                if theme == "none" {
                    try await client.selectTheme(nil)
                } else if offline {
                    if client.chosenThemeID != theme {
                        throw LiveryError(.network, "--offline: theme '\(theme)' is not stored")
                    }
                } else {
                    try await client.selectTheme(theme)
                }
            } catch {
                Self.report(error)
                if failure == nil { failure = error }
            }
        }
        do { try client.reapply() } catch {
            Self.report(error)
            if failure == nil { failure = error }
        }
        let skin = client.current
        let values = keys.map { key in (key, Self.json(skin?.resolve(key, appearance: look))) }
        if crashBeforeApplied {
            // The app died while drawing: nothing confirmed, nothing sent; the next launch reports the crash.
            Self.printLine(
                skin: skin, themeID: client.chosenThemeID, values: values, error: failure, source: client.source,
                reported: 0)
            throw ExitCode(3)
        }
        do { try client.markApplied() } catch {
            Self.report(error)
            if failure == nil { failure = error }
        }
        // A short-lived app sends this launch's reports before it quits, its own `applied` included.
        var reported = 0
        if !offline {
            switch await client.sendReports() {
            case .notSent: break
            case .delivered(let count): reported = count
            case .refused(let count, let status, let message):
                Self.warn("\(count) outcome reports refused with HTTP \(status) and dropped: \(message)")
            case .kept(let count, let reason):
                Self.warn("\(count) outcome reports kept for a later launch: \(reason)")
            }
        }
        Self.printLine(
            skin: skin, themeID: client.chosenThemeID, values: values, error: failure, source: client.source,
            reported: reported)
        if failure != nil { throw ExitCode(1) }
    }

    static func report(_ error: LiveryError) { warn("\(error.code.rawValue): \(error.message)") }

    static func warn(_ text: String) { FileHandle.standardError.write(Data("livery-phone: \(text)\n".utf8)) }

    static func printLine(
        skin: Skin?, themeID: String?, values: [(String, JSONValue)], error: LiveryError?, source: DecisionSource,
        reported: Int
    ) {
        var valueMembers: [JSONObject.Member] = []
        for (key, value) in values where !valueMembers.contains(where: { $0.key == key }) {
            valueMembers.append(.init(key: key, value: value))
        }
        let errorValue: JSONValue =
            error.map {
                .object(
                    JSONObject([
                        .init(key: "code", value: .string($0.code.rawValue)),
                        .init(key: "message", value: .string($0.message))
                    ]))
            } ?? .null
        let line = JSONValue.object(
            JSONObject([
                .init(key: "skinId", value: skin.map { .string($0.id) } ?? .null),
                .init(key: "skinSign", value: .string(skin?.sign ?? "")),
                .init(key: "themeId", value: themeID.map { .string($0) } ?? .null),
                .init(key: "values", value: .object(JSONObject(valueMembers))),
                .init(key: "error", value: errorValue),
                .init(key: "source", value: .string(source.rawValue)),
                .init(key: "reported", value: .number(JSONNumber(reported)))
            ]))
        FileHandle.standardOutput.write(Data(line.serialized(.compact) + [UInt8(ascii: "\n")]))
    }

    /// A resolved value as `--get` prints it.
    static func json(_ value: Skin.Value?) -> JSONValue {
        switch value {
        case nil: .null
        case .color(let color), .imageColor(let color): .string(hex(color))
        case .imageFile(let url), .resource(let url): .string(url.standardizedFileURL.path)
        case .remoteImage(let url): .string(url)
        case .value(let value): value
        }
    }

    /// `#RRGGBBAA` in uppercase, or `random`.
    static func hex(_ color: ConfigColor) -> String {
        switch color {
        case .random: return ConfigColor.randomSpelling
        case .fixed(let color):
            let alpha = UInt8(max(0, min(255, (color.alpha * 255).rounded())))
            return "#"
                + [color.red, color.green, color.blue, alpha].map { byte in
                    let text = String(byte, radix: 16, uppercase: true)
                    return text.count == 1 ? "0" + text : text
                }.joined()
        }
    }
}

/// Bad arguments exit 2 (ArgumentParser's own usage status is 64); `--help` exits 0.
@main enum LiveryPhoneMain {
    static func main() async {
        do {
            var command = try LiveryPhone.parseAsRoot()
            if let phone = command as? LiveryPhone {
                try await phone.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = LiveryPhone.exitCode(for: error)
            if code == .success {
                print(LiveryPhone.fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data("livery-phone: \(LiveryPhone.fullMessage(for: error))\n".utf8))
            Foundation.exit(2)
        }
    }
}
