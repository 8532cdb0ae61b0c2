import AppexSystem
import Foundation

/// Code only a containing app may link, found in an executable as Apple's linker finds an
/// extension "linking against a dylib which is not safe for use in application extensions".
///
/// A module linked statically leaves its name in the executable, NUL-terminated, in the
/// module descriptor Swift's runtime metadata needs, which `strip` keeps; one linked as a
/// shared library leaves `lib<Module>.so` among the libraries the executable needs.
enum AppOnlyCode {
    /// The modules whose API an app extension may not use.
    static let modules = ["AppexApplication"]

    /// The app-only modules the executable at `relative` in `bundle` links, reached through
    /// links that stay inside the bundle; empty if it can't be read.
    static func modules(linkedInto relative: String, in bundle: URL) -> [String] {
        guard let file = try? ConfinedFolder(trusted: bundle.path).openRegularFile(relative, followingLinks: true) else { return [] }
        defer { file.close() }
        guard let contents = try? file.mapContents() else { return [] }
        return modules.filter { module in
            [module, "lib\(module).so"].contains { contains(contents, [0] + Array($0.utf8) + [0]) }
        }
    }

    /// Whether `needle` (a name between NULs) occurs in `contents`: memchr finds each
    /// candidate for the name's first letter and memcmp checks it, at C's speed even in a
    /// debug build, where `Data.range(of:)` takes seconds over an 80 MB executable.
    private static func contains(_ contents: Data, _ needle: [UInt8]) -> Bool {
        contents.withUnsafeBytes { haystack in
            guard let base = haystack.baseAddress, needle.count > 1, haystack.count >= needle.count else { return false }
            var offset = 1
            while offset <= haystack.count - needle.count + 1 {
                guard let found = memchr(base + offset, Int32(needle[1]), haystack.count - offset - needle.count + 2) else { return false }
                let start = base.distance(to: UnsafeRawPointer(found)) - 1
                if memcmp(base + start, needle, needle.count) == 0 { return true }
                offset = start + 2
            }
            return false
        }
    }
}
