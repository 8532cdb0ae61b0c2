public import AppexCore
import AppexLocking
import Synchronization

extension Registry {
    /// The enabled extensions of `point` whose activation rules match `items`, in the user's
    /// order. Rules are evaluated as Apple evaluates them: against a serialized description of
    /// the items, without live providers.
    ///
    /// Extensions of a point that Appex recognizes but does not host are never offered, nor
    /// are those of a point no installed app declares any more, nor other apps' extensions
    /// of a private point.
    public func query(point: String, items: ActivationItems) throws(RegistryError) -> [InstalledExtension] {
        let generation = try generation()
        let index = try pointIndex(point, generation: generation)
        let context = ActivationContext(items: items, types: try typeGraph(generation: generation))
        return index.matches(context)
    }

    /// The compiled index of `point` for `generation`, which must be the database's current one.
    func pointIndex(_ point: String, generation: Int) throws(RegistryError) -> PointIndex {
        if let cached = cache.withLock({ $0.generation == generation ? $0.points[point] : nil }) { return cached }
        let catalogPoint = try extensionPoints(generation: generation)[point]
        var offered: [InstalledExtension] = []
        if let catalogPoint, catalogPoint.support == .hosted {
            offered = try extensions(point: point).filter { $0.isEnabled && catalogPoint.admitsExtensions(ofApp: $0.appIdentifier) }
        }
        let index = PointIndex(extensions: offered, offersExtensionsWithoutRule: !(catalogPoint?.policy.requiresActivationRule ?? true))
        cache.withLock {
            if $0.generation != generation { $0 = RegistryCache(generation: generation) }
            $0.points[point] = index
        }
        return index
    }
}
