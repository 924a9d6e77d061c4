import ArgumentParser
import LiveryCrypto
import LiveryProtocol

/// `livery keys create --id ID [--out FILE]`: a new signing key for answers.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the keys that sign answers.",
        subcommands: [Create.self])

    /// Writes a new private key file and prints its public key.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Write a new ECDSA P-256 signing key (mode 0600) and print its public key.",
            discussion: """
                The private key file is PKCS#8 PEM preceded by a `Livery-Key-Id: ID` line (`openssl pkey -in FILE` \
                reads it). It is created with mode 0600 and never overwrites an existing file.

                Standard output is the public key file: comment lines with the base64 SubjectPublicKeyInfo (DER) \
                that apps embed with the id, then the id line and the PEM block. Save it (`> ID.pub.pem`) for \
                `livery verify --public-key`.

                Exit status: 0 written; 2 bad arguments or the file exists or cannot be written; 3 OpenSSL failed.
                """)

        @Option(help: ArgumentHelp("The key's id (\(KeyID.rule)); signatures name it as their keyid.", valueName: "id"))
        var id: String

        @Option(
            help: ArgumentHelp(
                "Where to write the private key (default: ID.pem in the current folder).", valueName: "file"))
        var out: String?

        func run() throws {
            // Checked here rather than in validate(), so bad arguments exit 2 as the discussion says.
            guard let id = KeyID(id) else {
                CommandInput.fail("--id '\(id)' is not a key id.", fix: "Use \(KeyID.rule), such as holiday-2026.")
            }
            let path = out ?? "\(id.text).pem"
            guard !path.isEmpty else { CommandInput.fail("--out is empty.", fix: "Give the path of the new key file.") }
            do {
                let key = try SigningKey.generate(id: id)
                try key.write(toNewFile: path)
                CommandInput.writeStandardOutput(Array(key.publicKey.fileText(id: id).utf8))
                CommandInput.writeStandardError(
                    Array(
                        """
                        Wrote the private key '\(id.text)' to \(path) (mode 0600): keep it secret, never commit it.
                        Standard output is its public key: save it for `livery verify --public-key`; apps embed the id \
                        and the base64 line.

                        """.utf8))
            } catch {
                CommandInput.writeStandardError(Array("livery: \(error.description)\n  fix: \(error.fix)\n".utf8))
                if case .cryptoFailure = error { throw ExitCode(3) }
                throw ExitCode(2)
            }
        }
    }
}
