import AppexCore

/// What the registry keeps in memory between queries, valid for one generation of the database.
struct RegistryCache: Sendable {
    var generation: Int = -1
    var types: UTTypeGraph?
}
