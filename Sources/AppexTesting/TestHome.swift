public import AppexCore
public import Foundation

/// A private `APPEX_HOME` for one test, so tests never touch the user's data, removed when
/// the value goes out of scope.
public struct TestHome: ~Copyable, Sendable {
    private let folder: TemporaryDirectory
    /// The home, rooted in the temporary folder.
    public let home: AppexHome

    public init() throws {
        folder = try TemporaryDirectory(prefix: "appex-home")
        home = AppexHome(root: folder.url.appendingPathComponent("home"))
    }

    /// A scratch folder beside the home, for bundles to install from.
    public var scratch: URL {
        folder.url.appendingPathComponent("scratch")
    }

    /// The live appexd processes serving this home (``AppexHome/daemonProcessIDs()``).
    public func daemonProcessIDs() -> [Int32] {
        home.daemonProcessIDs()
    }

    /// The environment a child process needs to use this home.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["APPEX_HOME"] = home.dataDirectory.path
        return environment
    }
}
