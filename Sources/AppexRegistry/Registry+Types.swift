public import AppexCore
import AppexLocking
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
}
