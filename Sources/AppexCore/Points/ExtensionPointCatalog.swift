/// The extension points the system knows, looked up by identifier.
public struct ExtensionPointCatalog: Sendable {
    private let byIdentifier: [String: ExtensionPoint]

    /// Every point, hosted first, in the order given.
    public let all: [ExtensionPoint]

    public init(_ points: [ExtensionPoint]) {
        all = points
        byIdentifier = Dictionary(points.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The point with this identifier, or `nil` when the system does not know it.
    public subscript(identifier: String) -> ExtensionPoint? {
        byIdentifier[identifier]
    }

    /// This catalog with `points` after its own; a point whose identifier it already has is
    /// left out, so a declaration never replaces a point the system defines.
    public func adding(_ points: [ExtensionPoint]) -> ExtensionPointCatalog {
        ExtensionPointCatalog(all + points.filter { byIdentifier[$0.id] == nil })
    }

    /// This catalog without the points the app `appIdentifier` declares.
    public func removingDeclarations(of appIdentifier: String) -> ExtensionPointCatalog {
        let app = appIdentifier.lowercased()
        return ExtensionPointCatalog(all.filter { $0.declaringApp?.lowercased() != app })
    }

    /// The point with this identifier or short name, compared case-insensitively (`share`, `Today`).
    public func point(named nameOrIdentifier: String) -> ExtensionPoint? {
        if let point = byIdentifier[nameOrIdentifier] { return point }
        let wanted = nameOrIdentifier.lowercased()
        return all.first { $0.name.lowercased() == wanted || $0.id.lowercased() == wanted }
    }
}
