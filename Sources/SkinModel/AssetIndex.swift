/// The skin's files arranged for resolving references: exact paths, and image files grouped by stem and
/// extension with their scales (`icons/tab` + `png` → 1: `icons/tab.png`, 2: `icons/tab@2x.png`).
struct AssetIndex: Sendable {
    /// Extensions (lowercased) treated as images.
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp"]
    /// The files `skin.json` and `config.json`, and the name of the dark config in packages holding both
    /// appearances, which references may not name.
    static let reservedPaths: Set<String> = ["skin.json", "config.json", ValidatedSkin.darkConfigName]

    struct GroupKey: Hashable, Sendable {
        /// Folder and base name without scale suffix or extension (`icons/tab`).
        var stem: String
        /// The extension exactly as written (`png`, `PNG`).
        var fileExtension: String
    }

    /// An image file name split into its parts.
    struct ImageName: Sendable, Equatable {
        var stem: String
        var scale: Int?
        var fileExtension: String?
    }

    private(set) var paths: Set<String> = []
    private(set) var groups: [GroupKey: [Int: AssetPath]] = [:]
    private(set) var groupKeysByStem: [String: [GroupKey]] = [:]
    /// Pairs of files that claim the same scale of the same image (`tab.png` and `tab@1x.png`).
    private(set) var scaleConflicts: [(first: AssetPath, second: AssetPath)] = []

    init(_ files: [AssetPath]) {
        for file in files.sorted() {
            paths.insert(file.rawValue)
            let name = AssetIndex.split(file.rawValue)
            guard let fileExtension = name.fileExtension,
                AssetIndex.imageExtensions.contains(fileExtension.lowercased())
            else { continue }
            let key = GroupKey(stem: name.stem, fileExtension: fileExtension)
            let scale = name.scale ?? 1
            if groups[key] == nil { groupKeysByStem[name.stem, default: []].append(key) }
            if let existing = groups[key]?[scale] {
                scaleConflicts.append((existing, file))
            } else {
                groups[key, default: [:]][scale] = file
            }
        }
    }

    /// Splits `icons/tab@2x.png` into stem `icons/tab`, scale 2, extension `png`.
    ///
    /// Works on `Character`s (a `.` or `/` carrying a combining mark is not a separator); printable-ASCII paths,
    /// where every byte is one `Character`, take an equivalent byte-level path that allocates only the results.
    static func split(_ path: String) -> ImageName {
        if let name = path.utf8.withContiguousStorageIfAvailable(splitPrintableASCII), let name { return name }
        return splitCharacters(path)
    }

    /// ``split(_:)`` on `Character`s, for any path.
    static func splitCharacters(_ path: String) -> ImageName {
        var base = Substring(path)
        var fileExtension: String?
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        if let dot = path.lastIndex(of: "."), dot > nameStart {
            fileExtension = String(path[path.index(after: dot)...])
            base = path[..<dot]
        }
        var scale: Int?
        for candidate in 1...3 where base.hasSuffix("@\(candidate)x") {
            let stem = base.dropLast(3)
            if stem.count > path.distance(from: path.startIndex, to: nameStart) {
                scale = candidate
                base = stem
            }
        }
        return ImageName(stem: String(base), scale: scale, fileExtension: fileExtension)
    }

    /// ``split(_:)`` for printable-ASCII bytes, step for step; `nil` when a byte is outside 0x20–0x7E.
    static func splitPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> ImageName? {
        var nameStart = 0
        var lastDot = -1
        for (offset, byte) in bytes.enumerated() {
            guard byte >= 0x20, byte < 0x7F else { return nil }
            if byte == UInt8(ascii: "/") { nameStart = offset + 1 }
            if byte == UInt8(ascii: ".") { lastDot = offset }
        }
        var baseEnd = bytes.count
        var fileExtension: String?
        if lastDot > nameStart {
            fileExtension = String(decoding: UnsafeBufferPointer(rebasing: bytes[(lastDot + 1)...]), as: UTF8.self)
            baseEnd = lastDot
        }
        var scale: Int?
        for candidate in 1...3 where hasScaleSuffix(bytes, end: baseEnd, scale: candidate) {
            if baseEnd - 3 > nameStart {
                scale = candidate
                baseEnd -= 3
            }
        }
        return ImageName(
            stem: String(decoding: UnsafeBufferPointer(rebasing: bytes[..<baseEnd]), as: UTF8.self),
            scale: scale, fileExtension: fileExtension)
    }

    /// Whether `bytes[..<end]` ends with `@<scale>x`.
    private static func hasScaleSuffix(_ bytes: UnsafeBufferPointer<UInt8>, end: Int, scale: Int) -> Bool {
        end >= 3 && bytes[end - 3] == UInt8(ascii: "@") && bytes[end - 2] == UInt8(ascii: "0") + UInt8(scale)
            && bytes[end - 1] == UInt8(ascii: "x")
    }

    func contains(_ path: String) -> Bool { paths.contains(path) }

    /// Why a reference could not be resolved to image files.
    enum ImageProblem: Error, Sendable, Equatable {
        case missing
        case ambiguous([String])
        case unsupportedType
    }

    /// The image files `reference` (already a valid, non-reserved path) names.
    ///
    /// Order of interpretation: a name with an image extension and `@Nx` names that one file; with an image
    /// extension alone, all scales of it; a name of an existing non-image file is refused; otherwise the name
    /// is taken without extension and must match the images of exactly one extension.
    func resolveImage(_ reference: String) -> Result<(variants: [ScaledFile], pinned: Bool), ImageProblem> {
        let name = AssetIndex.split(reference)
        if let fileExtension = name.fileExtension, AssetIndex.imageExtensions.contains(fileExtension.lowercased()) {
            let scales = groups[GroupKey(stem: name.stem, fileExtension: fileExtension)] ?? [:]
            if let scale = name.scale {
                guard let file = scales[scale], file.rawValue == reference else {
                    return .failure(.missing)
                }
                return .success(([ScaledFile(scale: scale, path: file)], true))
            }
            guard !scales.isEmpty else { return .failure(.missing) }
            return .success((scales.map { ScaledFile(scale: $0.key, path: $0.value) }, false))
        }
        if paths.contains(reference) { return .failure(.unsupportedType) }
        // No (image) extension: `tab_home` or `tab_home@2x`.
        var stem = reference
        var pinnedScale: Int?
        for candidate in 1...3 where reference.hasSuffix("@\(candidate)x") && reference.count > 3 {
            stem = String(reference.dropLast(3))
            pinnedScale = candidate
        }
        let keys = groupKeysByStem[stem] ?? []
        if keys.count > 1 {
            return .failure(.ambiguous(keys.compactMap { groups[$0]?.values.sorted().first?.rawValue }.sorted()))
        }
        guard let key = keys.first, let scales = groups[key] else {
            return .failure(.missing)
        }
        if let pinnedScale {
            guard let file = scales[pinnedScale] else { return .failure(.missing) }
            return .success(([ScaledFile(scale: pinnedScale, path: file)], true))
        }
        return .success((scales.map { ScaledFile(scale: $0.key, path: $0.value) }, false))
    }

    /// A file that `reference` probably meant: same path in another letter case, or a close name.
    func suggestion(for reference: String) -> String? {
        let lowered = reference.lowercased()
        let candidates = paths.filter { !AssetIndex.reservedPaths.contains($0) }.sorted(by: bytewiseLess)
        if let exact = candidates.first(where: { $0.lowercased() == lowered }) { return exact }
        // A name without extension is compared with image stems, and suggested in the same form.
        let stems = Set(candidates.map { AssetIndex.split($0).stem }).sorted(by: bytewiseLess)
        if let stem = stems.first(where: { $0.lowercased() == lowered }) { return stem }
        let pool = AssetIndex.split(reference).fileExtension == nil ? stems : candidates
        return closestMatch(to: reference, among: pool)
    }
}
