import AppexCore

/// "Did you mean …?": the known word closest to a mistyped one, for commands, points and
/// identifiers, as git and cargo suggest.
enum Suggestion {
    /// The candidate closest to `typed` by edits (case aside), if it is close enough to be
    /// what was meant: at most a third of its letters off, and never more than three.
    static func closest(to typed: String, among candidates: some Sequence<String>) -> String? {
        let wanted = typed.lowercased()
        let allowed = min(3, max(1, wanted.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = EditDistance.between(wanted, candidate.lowercased())
            if distance <= allowed, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// A failure that says `message`, then the candidate closest to `typed` if one is
    /// close, then `hint`: "there is no point shre; did you mean `share`? `appex points` lists them".
    static func failure(_ status: Int32, _ message: String, typed: String, among candidates: some Sequence<String>, hint: String,
                        code: String) -> CommandFailure {
        let closest = closest(to: typed, among: candidates).map { "did you mean `\($0)`? " } ?? ""
        return CommandFailure(status: status, message, hint: closest + hint, code: code)
    }
}
