/// Did-you-mean suggestions for lint: the closest spelling among candidates.
enum LintSuggestions {
    /// The candidate closest to `word`, if one is close enough to be a likely misspelling,
    /// or one that `word` is a prefix of (`…SupportsWebURL` for `…SupportsWebURLWithMaxCount`).
    static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        // A clear winner on the longest shared prefix: `…SupportsFileURLs` is about files.
        let prefixes = candidates.map { (candidate: $0, length: commonPrefixLength(lowered, $0.lowercased())) }
            .sorted { $0.length > $1.length }
        if prefixes.count >= 2, prefixes[0].length >= prefixes[1].length + 3 { return prefixes[0].candidate }
        var best: (candidate: String, distance: Int)? = nil
        for candidate in candidates {
            let distance = EditDistance.between(lowered, candidate.lowercased())
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        if let best, best.distance <= max(2, word.count / 8) { return best.candidate }
        if let prefixed = candidates.first(where: { $0.lowercased().hasPrefix(lowered) && lowered.count >= 12 }) { return prefixed }
        if let best, best.distance <= max(2, word.count / 5) { return best.candidate }
        return nil
    }

    static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
    }
}
