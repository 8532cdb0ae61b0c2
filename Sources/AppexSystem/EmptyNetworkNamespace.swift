import CAppexSystem
import Glibc

/// A network namespace with nothing in it but a loopback device that is down, made once and
/// joined by every sandboxed process that may not use the network (``ProcessRestrictions/emptyNetwork``),
/// instead of each making one: the kernel takes about 0.7 ms to make a network namespace,
/// and tears each one down again when its last process ends.
///
/// It belongs to a user namespace of its own. A process that joins makes its own user
/// namespace inside that one, so it holds no capability over the network namespace: it can't
/// bring the loopback up, or add a device. Sharing it lets processes meet only where the
/// namespace is the boundary: abstract Unix sockets, which Landlock scopes to each process's
/// own domain from ABI 6 on, so ``Sandbox`` shares one only where Landlock does that.
public final class EmptyNetworkNamespace: Sendable, Hashable {
    /// The user namespace that owns it, and the network namespace.
    let user: FileDescriptor
    let network: FileDescriptor

    /// Makes one, and checks that a process can join it and make its own user, pid and mount
    /// namespaces inside; throws the step that fails if not.
    public init() throws(SystemError) {
        var user: CInt = -1
        var network: CInt = -1
        guard appex_empty_network_make(&user, &network) == 0 else { throw SystemError("unshare (network namespace)") }
        self.user = FileDescriptor(owning: user)
        self.network = FileDescriptor(owning: network)
        var step: CInt = 0
        let joining = ProcessRestrictions.Namespaces([.user, .pid, .mount]).rawValue
        guard appex_namespaces_probe(joining, user, network, &step) == 0 else {
            throw SystemError(ProcessRestrictions.stepName(step))
        }
    }

    /// One received from the process that made it, through its two descriptors.
    init(adopting user: FileDescriptor, network: FileDescriptor) {
        self.user = user
        self.network = network
    }

    public static func == (left: EmptyNetworkNamespace, right: EmptyNetworkNamespace) -> Bool { left === right }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
