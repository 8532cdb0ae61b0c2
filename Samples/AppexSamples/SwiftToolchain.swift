public import Foundation

/// The Swift toolchain's programs: the first on PATH, else where Swift's Linux toolchains install.
public enum SwiftToolchain {
    /// `swift`, which runs SwiftPM.
    public static var swift: URL? { find("swift") }

    /// `swiftc`, the compiler.
    public static var swiftc: URL? { find("swiftc") }

    private static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        return (path + ["/opt/swift/usr/bin", "/usr/bin"]).lazy
            .map { URL(fileURLWithPath: $0).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
