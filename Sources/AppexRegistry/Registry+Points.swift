public import AppexCore
import AppexLocking
import GRDB
import Synchronization

extension Registry {
    /// Every extension point: the system's, then those installed apps declare in their
    /// Info.plists (`AppexExtensionPoints`), by identifier.
    public func extensionPoints() throws(RegistryError) -> ExtensionPointCatalog {
        try extensionPoints(generation: try generation())
    }

    /// The point `identifier`, the system's or one an installed app declares; nil when no
    /// one does.
    public func extensionPoint(_ identifier: String) throws(RegistryError) -> ExtensionPoint? {
        try extensionPoints()[identifier]
    }

    /// The catalog for `generation`, which must be the database's current one.
    func extensionPoints(generation: Int) throws(RegistryError) -> ExtensionPointCatalog {
        if let cached = cache.withLock({ $0.generation == generation ? $0.pointCatalog : nil }) { return cached }
        let records = try read("read the declared extension points") { db in
            try ExtensionPointRecord.order(Column("identifier")).fetchAll(db)
        }
        var declared: [ExtensionPoint] = []
        for record in records {
            // Each was valid when it was installed; one this version can't read is left out, and
            // its extensions are not offered, rather than run under a policy no one declared.
            guard let entries = (try? PropertyListCoding.decode(record.declaration))?.dictionaryValue else { continue }
            var diagnostics: [Diagnostic] = []
            if let point = ExtensionPoint.declared(record.identifier, entries: entries, app: record.appIdentifier,
                                                   file: record.appIdentifier, diagnostics: &diagnostics) {
                declared.append(point)
            }
        }
        let catalog = ExtensionPoint.catalog.adding(declared)
        cache.withLock {
            if $0.generation != generation { $0 = RegistryCache(generation: generation) }
            $0.pointCatalog = catalog
        }
        return catalog
    }
}
