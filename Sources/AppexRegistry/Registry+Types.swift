public import AppexCore
import AppexLocking
import Foundation
import GRDB
import Synchronization

extension Registry {
    /// The uniform types in force: the system's, plus those installed apps export and import.
    public func typeGraph() throws(RegistryError) -> UTTypeGraph {
        try typeGraph(generation: try generation())
    }

    /// The type graph for `generation`, which must be the database's current one.
    func typeGraph(generation: Int) throws(RegistryError) -> UTTypeGraph {
        if let cached = cache.withLock({ $0.generation == generation ? $0.types : nil }) { return cached }
        let records = try read("read installed type declarations") { db in
            // A stable order, so that when two apps declare one type the same one always wins.
            try TypeDeclarationRecord.order(Column("appIdentifier"), Column("id")).fetchAll(db)
        }
        var declarations: [UTTypeDeclaration] = []
        for record in records {
            if let value = try? PropertyListCoding.decode(record.declaration) {
                declarations += UTTypeDeclaration.parse(
                    .array([value]), keyPath: record.appIdentifier, kind: record.isExported ? .exported : .imported
                ).declarations
            }
        }
        let graph = UTTypeGraph.system.adding(declarations)
        cache.withLock {
            if $0.generation != generation { $0 = RegistryCache(generation: generation) }
            $0.types = graph
        }
        return graph
    }

    /// The type declarations of installed apps, as an Info.plist's `UTExportedTypeDeclarations`
    /// and `UTImportedTypeDeclarations`, in JSON, for a process that is to know them (an
    /// extension, through ``AppexCore/UTTypeGraph/process``): `app`'s first, then the others'
    /// in a stable order, up to `limit` bytes of declarations; nil when no app declares a type.
    /// Kept for the generation it was made at, as the type graph is: appexd asks at each launch.
    public func typeDeclarationsJSON(preferring app: String, limit: Int) throws(RegistryError) -> String? {
        let generation = try generation()
        let key = "\(limit) \(app)"
        if let cached = cache.withLock({ $0.generation == generation ? $0.typeDeclarations[key] : nil }) { return cached }
        let json = try makeTypeDeclarationsJSON(preferring: app, limit: limit)
        cache.withLock {
            if $0.generation != generation { $0 = RegistryCache(generation: generation) }
            $0.typeDeclarations[key] = .some(json)
        }
        return json
    }

    private func makeTypeDeclarationsJSON(preferring app: String, limit: Int) throws(RegistryError) -> String? {
        let records = try read("read installed type declarations") { db in
            try TypeDeclarationRecord.order(Column("appIdentifier"), Column("id")).fetchAll(db)
        }
        var exported: [PropertyListValue] = []
        var imported: [PropertyListValue] = []
        var size = 0
        for record in records.filter({ $0.appIdentifier == app }) + records.filter({ $0.appIdentifier != app }) {
            guard size + record.declaration.count <= limit, let value = try? PropertyListCoding.decode(record.declaration) else { continue }
            size += record.declaration.count
            if record.isExported { exported.append(value) } else { imported.append(value) }
        }
        guard !exported.isEmpty || !imported.isEmpty else { return nil }
        let list = PropertyListValue.dictionary(["UTExportedTypeDeclarations": .array(exported), "UTImportedTypeDeclarations": .array(imported)])
        // JSON: shorter than XML in an environment variable, and it holds what a declaration holds.
        return (try? JSONEncoder().encode(list)).map { String(decoding: $0, as: UTF8.self) }
    }
}
