import Glibc

/// A launch as it travels to the launcher (docs/zygote.md): everything of a
/// ``ProcessLaunch`` but its descriptors, which travel beside it as `SCM_RIGHTS`, in
/// ``descriptorTargets``' order, and then the empty network namespace's two when
/// ``joinsEmptyNetwork``; and where the program's `main` is.
///
/// ```swift
/// let (order, descriptors) = LaunchOrder.make(launch, mainAddress: loadable.mainAddress)
/// // … sent, and received by the launcher:
/// let launch = try order.launch(with: received)
/// ```
public struct LaunchOrder: Sendable, Hashable, Codable {
    public var executable: String
    /// Where the program's `main` is, relative to the address it is loaded at.
    public var mainAddress: UInt64
    public var arguments: [String]
    public var environment: [String: String]
    /// The number each descriptor sent beside the order gets in the program.
    public var descriptorTargets: [Int32]
    public var directory: String?
    public var diesWithParent: Bool
    public var addressSpaceLimit: UInt64?
    public var restrictions: ProcessRestrictions?
    /// Whether the restrictions join an empty network namespace, whose two descriptors come
    /// last among those sent.
    public var joinsEmptyNetwork: Bool

    /// The order for `launch`, and the descriptors to send beside it, still the launch's.
    public static func make(_ launch: ProcessLaunch, mainAddress: UInt64) -> (LaunchOrder, [FileDescriptor]) {
        let network = launch.restrictions?.emptyNetwork
        let order = LaunchOrder(executable: launch.executable, mainAddress: mainAddress, arguments: launch.arguments,
                                environment: launch.environment, descriptorTargets: launch.descriptors.map(\.1),
                                directory: launch.directory, diesWithParent: launch.diesWithParent,
                                addressSpaceLimit: launch.addressSpaceLimit, restrictions: launch.restrictions,
                                joinsEmptyNetwork: network != nil)
        return (order, launch.descriptors.map(\.0) + (network.map { [$0.user, $0.network] } ?? []))
    }

    /// The launch this order describes, taking `descriptors`, the ones received beside it.
    /// Throws EINVAL if they are not as many as the order says.
    public func launch(with descriptors: [FileDescriptor]) throws(SystemError) -> ProcessLaunch {
        let expected = descriptorTargets.count + (joinsEmptyNetwork ? 2 : 0)
        guard descriptors.count == expected, joinsEmptyNetwork ? restrictions != nil : true else {
            throw SystemError("launch order", subject: "\(descriptors.count) descriptors came where \(expected) were expected", errno: EINVAL)
        }
        var restrictions = restrictions
        if joinsEmptyNetwork {
            restrictions?.emptyNetwork = EmptyNetworkNamespace(adopting: descriptors[expected - 2], network: descriptors[expected - 1])
        }
        return ProcessLaunch(executable: executable, arguments: arguments, environment: environment,
                             descriptors: Array(zip(descriptors, descriptorTargets)), directory: directory,
                             diesWithParent: diesWithParent, addressSpaceLimit: addressSpaceLimit, restrictions: restrictions)
    }
}
