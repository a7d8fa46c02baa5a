/// The candidate closest to a misspelt name, for "did you mean …" hints.
///
/// Distance is the Levenshtein edit distance, compared case-insensitively. The best
/// candidate (the first one on a tie) is returned when its distance is at most
/// `max(2, name.count / 3)`; otherwise `nil`, so that unrelated names are never suggested.
public func closestName(to name: String, among candidates: [String]) -> String? {
    let target = Array(name.lowercased())
    let limit = max(2, target.count / 3)
    var best: (name: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(target, Array(candidate.lowercased()))
        if distance <= limit, distance < (best?.distance ?? Int.max) {
            best = (candidate, distance)
        }
    }
    return best?.name
}

/// Levenshtein distance with one rolling row.
private func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
