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

    /// The live appexd processes serving this home, found from /proc: an appexd executable
    /// whose environment names the home. Zombies are left out.
    public func daemonProcessIDs() -> [Int32] {
        let home = "APPEX_HOME=\(home.dataDirectory.path)"
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.compactMap(Int32.init).filter { pid in
            guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"), exe.hasSuffix("/appexd"),
                  let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == home }
        }.filter { pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            return !status.contains("State:\tZ")
        }
    }

    /// The environment a child process needs to use this home.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["APPEX_HOME"] = home.dataDirectory.path
        return environment
    }
}
