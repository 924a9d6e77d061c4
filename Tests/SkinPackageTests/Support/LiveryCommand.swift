import Foundation
import TestSupport
import Testing

/// Reading what `livery pack` prints (the binary runs through `BuiltProduct.runLivery`).
enum LiveryCommand {
    /// The `key value` lines `livery pack` prints, as a dictionary.
    static func fields(of output: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }
}
