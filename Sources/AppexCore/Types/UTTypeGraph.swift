/// The graph of uniform types: which types exist and which conform to which.
///
/// Conformance is transitive over a graph, not a tree: `public.jpeg` conforms to
/// `public.image`, which conforms to both `public.data` and `public.content`.
public final class UTTypeGraph: Sendable {
    private let declarations: [String: UTTypeDeclaration]

    /// Builds a graph from declarations. A later declaration of the same identifier wins.
    public init(declarations: [UTTypeDeclaration]) {
        var byIdentifier: [String: UTTypeDeclaration] = [:]
        for declaration in declarations {
            byIdentifier[declaration.identifier.lowercased()] = declaration
        }
        self.declarations = byIdentifier
    }

    /// The declaration of `identifier`, if the graph knows it. Identifiers compare case-insensitively.
    public func declaration(for identifier: String) -> UTTypeDeclaration? {
        declarations[identifier.lowercased()]
    }

    /// Whether `type` is `other` or conforms to it, directly or through any chain of parents.
    public func conforms(_ type: String, to other: String) -> Bool {
        let target = other.lowercased()
        var pending = [type.lowercased()]
        var seen: Set<String> = []
        while let current = pending.popLast() {
            if current == target { return true }
            guard seen.insert(current).inserted, let declaration = declarations[current] else { continue }
            pending.append(contentsOf: declaration.conformsTo.map { $0.lowercased() })
        }
        return false
    }
}
