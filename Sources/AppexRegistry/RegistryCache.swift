import AppexCore

/// What the registry keeps in memory between queries, valid for one generation of the database.
struct RegistryCache: Sendable {
    var generation: Int = -1
    var types: UTTypeGraph?
    /// `Registry.typeDeclarationsJSON`'s answers, by limit and preferred app.
    var typeDeclarations: [String: String?] = [:]
    var points: [String: PointIndex] = [:]
    /// The system's extension points and those installed apps declare.
    var pointCatalog: ExtensionPointCatalog?
    /// `Registry.extension(_:)`'s answers, by the identifier as asked.
    var extensions: [String: CachedExtension] = [:]
}

/// One answer of `Registry.extension(_:)`, `nil` (not installed) included, and the preferred
/// languages its names were localized for.
struct CachedExtension: Sendable {
    var languages: [String]
    var installed: InstalledExtension?
}

/// A point's enabled extensions in the user's order, with their rules compiled, and each
/// distinct rule compiled once: real rules repeat a lot (`TRUEPREDICATE` most of all), so a
/// query evaluates each distinct rule once, not once per extension, and each comparison the
/// distinct rules share once (``ActivationRuleSet``).
struct PointIndex: Sendable {
    /// The enabled extensions, in the user's order.
    var extensions: [InstalledExtension] = []
    /// For each extension, the index of its rule in `rules`, or `nil` when it has none.
    var ruleIndices: [Int?] = []
    /// The distinct compiled rules.
    var rules = ActivationRuleSet([])
    /// Whether extensions without a rule are offered for any items (points that need no rule).
    var offersExtensionsWithoutRule = true

    init(extensions: [InstalledExtension], offersExtensionsWithoutRule: Bool) {
        self.offersExtensionsWithoutRule = offersExtensionsWithoutRule
        var indexBySource: [PropertyListValue: Int] = [:]
        var rules: [ActivationRule] = []
        for plugIn in extensions {
            guard let source = plugIn.manifest.activationRule else {
                self.extensions.append(plugIn)
                ruleIndices.append(nil)
                continue
            }
            if let index = indexBySource[source] {
                self.extensions.append(plugIn)
                ruleIndices.append(index)
            } else if let rule = try? ActivationRule.parse(source) {
                // A rule that no longer compiles (validated at install by an older version)
                // is never offered rather than offered for everything.
                indexBySource[source] = rules.count
                rules.append(rule)
                self.extensions.append(plugIn)
                ruleIndices.append(rules.count - 1)
            }
        }
        self.rules = ActivationRuleSet(rules)
    }

    /// The extensions whose rules match `context`, in order.
    func matches(_ context: ActivationContext) -> [InstalledExtension] {
        let results = rules.matches(context)
        var matching: [InstalledExtension] = []
        for position in extensions.indices {
            let matches = ruleIndices[position].map { results[$0] } ?? offersExtensionsWithoutRule
            if matches { matching.append(extensions[position]) }
        }
        return matching
    }
}
