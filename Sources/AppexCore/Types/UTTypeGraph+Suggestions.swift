extension UTTypeGraph {
    /// The declared identifier closest to `identifier` by edit distance, for "did you mean"
    /// hints such as `public.camera-raw-imag` → `public.camera-raw-image`.
    ///
    /// Letters compare ignoring case. If `identifier` is itself declared, returns its declared
    /// spelling. Ties go to the earlier declaration.
    ///
    /// - Parameter maximumDistance: The most edits (insertions, deletions, substitutions)
    ///   allowed. By default a third of the identifier's length, at least 1 and at most 8,
    ///   so short names don't match everything.
    /// - Returns: `nil` when no declared identifier is that close.
    public func closestDeclaredIdentifier(to identifier: String, maximumDistance: Int? = nil) -> String? {
        if let declaration = declaration(for: identifier) { return declaration.identifier }
        let query = Array(identifier.utf8.map(CaseInsensitiveKey.lowercase))
        let limit = maximumDistance ?? min(8, max(1, query.count / 3))
        guard limit >= 0 else { return nil }
        var best: (distance: Int, identifier: String)?
        var row: [Int] = []
        for node in nodes where node.origin != .undeclared {
            let candidate = node.declaration.identifier
            let bound = min(limit, (best?.distance ?? limit + 1) - 1)
            guard bound >= 0, abs(candidate.utf8.count - query.count) <= bound else { continue }
            if let distance = Self.editDistance(query, candidate, bound: bound, row: &row) {
                best = (distance, candidate)
                if distance == 0 { break }
            }
        }
        return best?.identifier
    }

    /// Levenshtein distance between `query` (already lowercased) and `candidate`, or `nil`
    /// once it must exceed `bound`.
    private static func editDistance(_ query: [UInt8], _ candidate: String, bound: Int, row: inout [Int]) -> Int? {
        row.removeAll(keepingCapacity: true)
        row.append(contentsOf: 0...query.count)
        var columnIndex = 0
        for byte in candidate.utf8 {
            columnIndex += 1
            let lowered = CaseInsensitiveKey.lowercase(byte)
            var diagonal = row[0]
            row[0] = columnIndex
            var rowMinimum = row[0]
            for position in 1...max(1, query.count) where position <= query.count {
                let above = row[position]
                let cost = query[position - 1] == lowered ? 0 : 1
                row[position] = min(above + 1, row[position - 1] + 1, diagonal + cost)
                diagonal = above
                rowMinimum = min(rowMinimum, row[position])
            }
            if rowMinimum > bound { return nil }
        }
        let distance = row[query.count]
        return distance <= bound ? distance : nil
    }
}
