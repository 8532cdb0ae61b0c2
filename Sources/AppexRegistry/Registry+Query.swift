public import AppexCore
import Synchronization

extension Registry {
    /// The enabled extensions of `point` whose activation rules match `items`, in the user's
    /// order. Rules are evaluated as Apple evaluates them: against a serialized description of
    /// the items, without live providers.
    ///
    /// Extensions of a point that Appex recognizes but does not host are never offered.
    public func query(point: String, items: ActivationItems) throws(RegistryError) -> [InstalledExtension] {
        let generation = try generation()
        let index = try pointIndex(point, generation: generation)
        let context = ActivationContext(items: items, types: try typeGraph(generation: generation))
        return index.matches(context)
    }

    /// The compiled index of `point` for `generation`, which must be the database's current one.
    func pointIndex(_ point: String, generation: Int) throws(RegistryError) -> PointIndex {
        if let cached = cache.withLock({ $0.generation == generation ? $0.points[point] : nil }) { return cached }
        let catalogPoint = ExtensionPoint.catalog[point]
        let hosted = catalogPoint?.support == .hosted
        let enabled = hosted ? try extensions(point: point).filter(\.isEnabled) : []
        let index = PointIndex(extensions: enabled, offersExtensionsWithoutRule: !(catalogPoint?.policy.requiresActivationRule ?? true))
        cache.withLock {
            if $0.generation != generation { $0 = RegistryCache(generation: generation) }
            $0.points[point] = index
        }
        return index
    }
}
