import Foundation

/// ISO 8601 instants for code outside the model (a command's `--at`, an answer's `expiresAt`), with the same
/// strict grammar as `skin.json`'s date-times.
public enum ISO8601Instant {
    /// The instant `text` names: `YYYY-MM-DDTHH:MM:SS[.fff]` with `Z` or `±HH:MM`. `nil` for anything else,
    /// including a date-time without an offset (which names no instant by itself).
    public static func parse(_ text: String) -> Date? { ISO8601DateTime(text)?.instant }

    /// `date` in UTC as `YYYY-MM-DDTHH:MM:SSZ`, with milliseconds when it has a fraction.
    public static func format(_ date: Date) -> String { ISO8601DateTime.utcText(date) }
}
