public import Foundation

/// The shared corpus of real Info.plists and activation rules, read from `../shared/corpus`
/// beside the package. It is never copied into the project.
public enum Corpus {
    /// Thrown when the corpus folder is absent, so a test can say why it did not run.
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "the shared corpus is not at \(path); this test needs ../shared beside the package" }
    }

    /// The corpus folder, found from this source file's place in the package.
    public static var directory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }

    /// Whether the corpus is there.
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: directory.path)
    }

    /// The files in a corpus subfolder, sorted by name.
    public static func files(in subfolder: String) throws -> [URL] {
        let folder = directory.appendingPathComponent(subfolder)
        guard isAvailable else { throw Missing(path: directory.path) }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0) }
    }
}
