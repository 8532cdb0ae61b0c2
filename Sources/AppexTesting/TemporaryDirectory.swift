import AppexSystem
public import Foundation

/// A fresh folder under the system's temporary directory, removed with everything in it
/// when the value goes out of scope. It can't be copied, so exactly one owner removes it.
///
/// ```swift
/// let folder = try TemporaryDirectory()
/// try Data().write(to: folder.url.appendingPathComponent("x"))
/// // removed here
/// ```
public struct TemporaryDirectory: ~Copyable, Sendable {
    /// The folder.
    public let url: URL

    public init(prefix: String = "appex-test") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        // Installed bundles are read-only, which FileManager's removal can't get through.
        try? ConfinedFolder.removeTree(atPath: url.path)
    }
}
