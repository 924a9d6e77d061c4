import Foundation

/// Reads a whole file as bytes (`nil` when it does not exist).
func readFile(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
