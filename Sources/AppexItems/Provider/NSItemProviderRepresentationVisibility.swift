/// Who may load a representation of an ``NSItemProvider``, as Apple's type of the same name says.
///
/// Appex reports the visibility with each ``NSItemProvider/Representation`` so that the
/// transport can decide what crosses to another process: an ``ownProcess`` representation
/// never does (see ``NSItemProvider/registeredTypeIdentifiers(crossingProcess:)``). The
/// transport decides what ``team`` and ``group`` allow, from the peers' bundles.
public enum NSItemProviderRepresentationVisibility: Int, Sendable, Hashable, CaseIterable {
    /// Any process may load the representation.
    case all = 0
    /// Only processes of apps from the same developer team.
    case team = 1
    /// Only processes that share an app group with the provider's app.
    case group = 2
    /// Only the process that registered the representation.
    case ownProcess = 3

    /// Whether a representation with this visibility may be offered to another process at all.
    public var mayCrossProcess: Bool { self != .ownProcess }
}
