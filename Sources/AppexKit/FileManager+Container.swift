public import Foundation

extension FileManager {
    /// The extension's own container, where it keeps its files: what `NSHomeDirectory()`
    /// returns inside an extension on Apple's platforms.
    ///
    /// appexd runs each extension with `HOME` set to its container, but Foundation on Linux
    /// may read the home folder from the password database instead, so use this rather than
    /// `NSHomeDirectory()` or `homeDirectoryForCurrentUser`. Outside an extension it is the
    /// user's home.
    public var extensionContainerURL: URL {
        if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return homeDirectoryForCurrentUser
    }
}
