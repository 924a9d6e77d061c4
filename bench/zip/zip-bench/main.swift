// zip-bench: packs a folder with ZipArchiveWriter, for bench/zip/run.sh and the cross-process determinism test.
//
//   zip-bench SOURCE_DIR OUTPUT.zip
//
// Every regular file under SOURCE_DIR becomes an entry named by its path relative to SOURCE_DIR, with
// `.automatic` compression. Prints "<sha256> <size> <entries>" on success; exits 1 with the error otherwise.
import Foundation
import ZipArchive
import ZipReading

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: zip-bench SOURCE_DIR OUTPUT.zip\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[1]).standardizedFileURL.path
let output = arguments[2]

var entries: [ZipEntry] = []
let enumerator = FileManager.default.enumerator(atPath: root)
while let relative = enumerator?.nextObject() as? String {
    let path = root + "/" + relative
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
    do {
        entries.append(ZipEntry(name: try ZipEntryName(relative), source: .file(path: path)))
    } catch {
        FileHandle.standardError.write(Data("zip-bench: \(error.logDescription)\n".utf8))
        exit(1)
    }
}
do {
    let summary = try ZipArchiveWriter.write(entries, to: output)
    print(summary.sha256, summary.size, summary.entryCount)
} catch {
    FileHandle.standardError.write(Data("zip-bench: \(error.logDescription)\n".utf8))
    exit(1)
}
