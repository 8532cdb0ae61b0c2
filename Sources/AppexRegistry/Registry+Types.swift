public import AppexCore
import GRDB
import Synchronization

extension Registry {
    /// The uniform types in force: the system's, plus those installed apps export and import.
    public func typeGraph() throws(RegistryError) -> UTTypeGraph {
        let generation = try generation()
        if let cached = cache.withLock({ $0.generation == generation ? $0.types : nil }) { return cached }
        let records = try read("read installed type declarations") { db in
            try TypeDeclarationRecord.order(Column("isExported"), Column("id")).fetchAll(db)
        }
        var declarations: [UTTypeDeclaration] = []
        for record in records {
            var diagnostics: [Diagnostic] = []
            if let value = try? PropertyListCoding.decode(record.declaration),
                let declaration = UTTypeDeclaration.read(value, file: record.appIdentifier, diagnostics: &diagnostics)
            {
                declarations.append(declaration)
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
