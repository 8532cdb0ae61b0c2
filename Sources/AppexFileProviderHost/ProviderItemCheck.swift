import AppexFileProvider

/// What a listing's items must be before the replica takes them: a provider is untrusted, and
/// an item it names `..`, `a/b` or after a container of its own would reach outside its folder,
/// outside its domain, or into a loop.
enum ProviderItemCheck {
    /// The most bytes an identifier may have.
    static let identifierLimit = 1024

    /// The items of `items` that may stand in `container`, whose ancestors (up to the root) are
    /// `ancestors`, and a reason for each one refused. Of two items with one identifier or one
    /// name, the first is kept.
    static func usable(_ items: [ProviderItem], in container: NSFileProviderItemIdentifier,
                       ancestors: Set<NSFileProviderItemIdentifier>) -> (kept: [ProviderItem], refusals: [String]) {
        var kept: [ProviderItem] = []
        var refusals: [String] = []
        var identifiers = Set<NSFileProviderItemIdentifier>()
        var names = Set<String>()
        for item in items {
            if let reason = refusal(of: item, in: container, ancestors: ancestors) {
                refusals.append(reason)
            } else if !identifiers.insert(item.identifier).inserted {
                refusals.append("a second item with the identifier \(quoted(item.identifier.rawValue))")
            } else if !names.insert(item.filename).inserted {
                refusals.append("a second item named \(quoted(item.filename)) in the same folder")
            } else {
                kept.append(item)
            }
        }
        return (kept, refusals)
    }

    private static func refusal(of item: ProviderItem, in container: NSFileProviderItemIdentifier,
                                ancestors: Set<NSFileProviderItemIdentifier>) -> String? {
        let name = item.filename
        if let problem = nameProblem(name) { return "an item named \(quoted(name)): \(problem)" }
        let identifier = item.identifier.rawValue
        if identifier.isEmpty || identifier.utf8.count > identifierLimit {
            return "an item (\(quoted(name))) whose identifier is empty or longer than \(identifierLimit) bytes"
        }
        if [.rootContainer, .trashContainer, .workingSet].contains(item.identifier) {
            return "an item (\(quoted(name))) with the system's identifier \(identifier)"
        }
        if item.identifier == container || ancestors.contains(item.identifier) {
            return "an item (\(quoted(name))) that is its own folder or one above it, a loop"
        }
        if item.parent != container {
            return "an item (\(quoted(name))) whose parent is \(quoted(item.parent.rawValue)), listed in \(quoted(container.rawValue))"
        }
        return nil
    }

    /// Why `name` can't be a name in a folder, or nil if it can.
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a name can't be empty" }
        if name == "." || name == ".." { return "a name can't be . or .." }
        if name.contains("/") { return "a name can't hold a /" }
        if name.utf8.contains(0) { return "a name can't hold a NUL" }
        if name.utf8.count > 255 { return "a name can't be longer than 255 bytes" }
        return nil
    }

    private static func quoted(_ text: String) -> String {
        "\"\(text.count > 80 ? String(text.prefix(80)) + "…" : text)\""
    }
}
