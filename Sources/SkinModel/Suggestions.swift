// "Did you mean" support for fixes: the nearest known name to a misspelled one.

/// Levenshtein distance for "did you mean" suggestions; O(n·m) on short identifiers.
func editDistance(_ a: String, _ b: String) -> Int {
    let left = Array(a.unicodeScalars)
    let right = Array(b.unicodeScalars)
    if left.isEmpty { return right.count }
    if right.isEmpty { return left.count }
    var previous = Array(0...right.count)
    var current = [Int](repeating: 0, count: right.count + 1)
    for i in 1...left.count {
        current[0] = i
        for j in 1...right.count {
            let cost = left[i - 1] == right[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[right.count]
}

/// The candidate nearest to `word` whatever the distance (ties: the first in order), or nil when there is none:
/// for naming what an unknown name was most likely meant to be.
public func nearestMatch(to word: String, among candidates: some Sequence<String>) -> String? {
    let lowered = word.lowercased()
    var best: (String, Int)?
    for candidate in candidates {
        let distance = editDistance(lowered, candidate.lowercased())
        if best.map({ distance < $0.1 }) ?? true { best = (candidate, distance) }
    }
    return best?.0
}

/// The candidate closest to `word` when it is close enough to be a plausible typo, else `nil`.
func closestMatch(to word: String, among candidates: some Sequence<String>) -> String? {
    let limit = max(2, word.count / 3)
    var best: (String, Int)?
    let lowered = word.lowercased()
    for candidate in candidates {
        // Lengths further apart than the limit cannot be within it; skipping them keeps this cheap.
        guard abs(candidate.count - word.count) <= limit else { continue }
        let distance = editDistance(lowered, candidate.lowercased())
        if distance <= limit, best.map({ distance < $0.1 }) ?? true { best = (candidate, distance) }
    }
    return best?.0
}
