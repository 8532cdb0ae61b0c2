/// One layer of the sandbox, and whether this kernel gives it. A layer the kernel lacks is
/// reported at launch and by `appex doctor`, never silently skipped.
public struct SandboxLayer: Sendable, Hashable, CustomStringConvertible {
    /// The layers, in the order they are applied.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case namespaces = "namespaces"
        case networkNamespace = "network namespace"
        case noNewPrivileges = "no_new_privs"
        case resourceLimits = "rlimits"
        case landlockFilesystem = "Landlock: files"
        case landlockNetwork = "Landlock: TCP"
        case landlockScopes = "Landlock: scopes"
        case seccomp = "seccomp baseline"
        /// Memory files must be sealed against execution, since Landlock's execute right,
        /// which covers paths, doesn't reach them.
        case executableMemory = "seccomp: memory files"
    }

    /// Whether the layer is in force.
    public enum State: Sendable, Hashable {
        case active(detail: String)
        case unavailable(reason: String)
    }

    public var kind: Kind
    public var state: State

    public var isActive: Bool {
        if case .active = state { return true }
        return false
    }

    public var description: String {
        switch state {
        case .active(let detail): "\(kind.rawValue): active (\(detail))"
        case .unavailable(let reason): "\(kind.rawValue): unavailable (\(reason))"
        }
    }
}
