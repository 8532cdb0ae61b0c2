import Foundation

extension AppexHome {
    /// The live appexd processes serving this home, found from /proc: an appexd executable
    /// whose environment names the home. Zombies are left out.
    public func daemonProcessIDs() -> [Int32] {
        let home = "APPEX_HOME=\(dataDirectory.path)"
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
}
