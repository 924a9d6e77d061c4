import Foundation

/// Why a refresh, a theme selection or a confirmation failed. Every failure keeps the skin that was applied and
/// leaves no partial folder behind; `code` says which rule refused, `message` says what was seen.
public struct LiveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure, with the stable spellings scripts and `livery-phone` print.
    public enum Code: String, Sendable, CaseIterable {
        /// The server could not be reached, or the connection was cut.
        case network
        /// The server answered with an error status or a body that is not an answer (5xx, 503 with `Retry-After`).
        case server
        /// Trusted keys are configured and the answer carries no `Livery-Signature`.
        case unsigned
        /// The signature header is malformed or does not verify over the body.
        case signature
        /// The answer is signed by a key id that is not among the trusted keys.
        case unknownKey = "unknown_key"
        /// The signed answer answers another question (another app, platform, scale or appearance).
        case wrongAnswer = "wrong_answer"
        /// The signed answer's `expiresAt` has passed (a replayed answer).
        case expired
        /// The package is larger or smaller than the answer said.
        case size
        /// The package's SHA-256 differs from the answer's.
        case hash
        /// The package is not a safe zip (entries escaping, links, absurd sizes or ratios, corrupt data).
        case zip
        /// The package's `config.json` is missing or invalid.
        case config
        /// The storage folder could not be written (full disk, permissions).
        case disk
        /// The sign was applied before and the app did not confirm it (a crash): it is never applied again here.
        case blocked
    }

    /// Which rule refused.
    public let code: Code
    /// What was seen, for logs and support; never holds a key or a secret.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// A storage failure: `disk`, naming the operation and the file.
    static func disk(_ operation: String, _ path: String, _ error: any Error) -> LiveryError {
        LiveryError(.disk, "\(operation) \(path): \(Self.reason(error))")
    }

    /// A short reason for a Foundation error (POSIX text when there is one).
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}
