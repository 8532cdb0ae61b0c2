import Foundation

extension UTTypeGraph {
    /// The system's types: the built-in table (`SystemTypes.plist`, compiled in), with MIME
    /// lookups that also consult shared-mime-info when `/usr/share/mime` has it.
    ///
    /// Built once, on first use, with no file to find or parse, so an installed extension
    /// gets the same types as the tools. `APPEX_SYSTEM_TYPES` names a table file to use
    /// instead, for packagers; if that file can't be read, this is an empty graph and
    /// ``systemLoadError`` says why. Nothing traps.
    public static let system: UTTypeGraph = systemLoad.graph

    /// Why the table `APPEX_SYSTEM_TYPES` names could not be loaded, or `nil`.
    public static var systemLoadError: UTTypeGraphLoadError? { systemLoad.error }

    private static let systemLoad: (graph: UTTypeGraph, error: UTTypeGraphLoadError?) = {
        let loadMIMEInfo: @Sendable () -> SharedMIMEInfo? = { SharedMIMEInfo(directory: SharedMIMEInfo.defaultDirectory) }
        guard let override = ProcessInfo.processInfo.environment[SystemTypesResource.environmentVariable], !override.isEmpty else {
            return (UTTypeGraph(declarations: UTTypeDeclaration.systemTable, loadMIMEInfo: loadMIMEInfo), nil)
        }
        do throws(UTTypeGraphLoadError) {
            let declarations = try systemDeclarations(path: override)
            return (UTTypeGraph(declarations: declarations, sharedMIMEInfo: loadMIMEInfo()), nil)
        } catch {
            return (UTTypeGraph(declarations: [], sharedMIMEInfo: loadMIMEInfo()), error)
        }
    }()

    /// Builds a system graph from a table file and a shared-mime-info directory of your choice,
    /// for tests and tools.
    ///
    /// - Parameters:
    ///   - systemTypesPath: A plist in `UTExportedTypeDeclarations` form; `nil` for the built-in one.
    ///   - sharedMIMEDirectory: A shared-mime-info directory; `nil` to use none.
    public static func makeSystem(
        systemTypesPath: String? = nil,
        sharedMIMEDirectory: String? = SharedMIMEInfo.defaultDirectory
    ) throws(UTTypeGraphLoadError) -> UTTypeGraph {
        let declarations = try systemDeclarations(path: systemTypesPath)
        let sharedMIMEInfo = sharedMIMEDirectory.flatMap { SharedMIMEInfo(directory: $0) }
        return UTTypeGraph(declarations: declarations, sharedMIMEInfo: sharedMIMEInfo)
    }

    /// Reads the declarations of a system table.
    ///
    /// - Parameter path: The plist to read; `nil` for the built-in `SystemTypes.plist`.
    public static func systemDeclarations(path: String? = nil) throws(UTTypeGraphLoadError) -> [UTTypeDeclaration] {
        let file: String
        if let path { file = path } else { file = try SystemTypesResource.locate() }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw UTTypeGraphLoadError(.unreadable, path: file, "can't be read: \(FileErrorText.describe(error))")
        }
        let value: PropertyListValue
        do {
            value = try PropertyListValue(decoding: data)
        } catch {
            throw UTTypeGraphLoadError(.malformed, path: file, error.description)
        }
        do {
            return try UTTypeDeclaration.declarations(from: value, keyPath: "", kind: .exported)
        } catch {
            throw UTTypeGraphLoadError(.malformed, path: file, "has a bad declaration at \(error.description)")
        }
    }
}

/// Finds `SystemTypes.plist` without trapping.
///
/// SwiftPM's generated `Bundle.module` calls `fatalError` on Linux when the resource bundle
/// is in neither of its two places, so Appex looks for the bundle itself, in the same
/// places and a few more, and reports every place it looked.
enum SystemTypesResource {
    /// The resource bundle SwiftPM makes for the AppexCore target of the `appex` package.
    static let bundleName = "appex_AppexCore.resources"
    static let fileName = "SystemTypes.plist"
    /// An environment variable that points at a table to use instead, for packagers.
    static let environmentVariable = "APPEX_SYSTEM_TYPES"

    static func locate(candidates: [String] = candidatePaths()) throws(UTTypeGraphLoadError) -> String {
        let fileManager = FileManager.default
        if let found = candidates.first(where: { fileManager.isReadableFile(atPath: $0) }) {
            return found
        }
        throw UTTypeGraphLoadError(
            .resourceMissing, path: fileName,
            "was not found; looked in \(candidates.joined(separator: ", ")). Install \(bundleName) next to the executable, or set \(environmentVariable) to the file's path")
    }

    static func candidatePaths() -> [String] {
        var directories: [URL] = []
        // Where Bundle.module looks first: beside the main executable.
        directories.append(Bundle.main.bundleURL)
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if executable.path != "/proc/self/exe" {
            directories.append(executable.deletingLastPathComponent())
        }
        if let path = Bundle.main.executablePath {
            directories.append(URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        // Where Bundle.module looks second: the build folder of the package this file was built in.
        directories += buildDirectories()

        var paths: [String] = []
        if let override = ProcessInfo.processInfo.environment[environmentVariable], !override.isEmpty {
            paths.append(override)
        }
        for directory in directories {
            let path = directory.appendingPathComponent(bundleName).appendingPathComponent(fileName).path
            if !paths.contains(path) { paths.append(path) }
        }
        return paths
    }

    /// `.build/<triple>/<configuration>` folders of the package whose sources this file is in.
    private static func buildDirectories() -> [URL] {
        // Sources/AppexCore/Types/UTTypeGraph+System.swift → the package root.
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let build = root.appendingPathComponent(".build")
        let fileManager = FileManager.default
        guard let children = try? fileManager.contentsOfDirectory(atPath: build.path) else { return [] }
        var result: [URL] = []
        for child in children.sorted() where !child.hasPrefix(".") {
            let folder = build.appendingPathComponent(child)
            result.append(folder)
            for configuration in ["debug", "release"] {
                result.append(folder.appendingPathComponent(configuration))
            }
        }
        return result
    }
}

/// Why a table of system types could not be loaded.
public struct UTTypeGraphLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        /// The table file is not installed where Appex looks.
        public static let resourceMissing = Code(name: "resourceMissing")
        /// The file exists but can't be read.
        public static let unreadable = Code(name: "unreadable")
        /// The file is not a valid declaration array.
        public static let malformed = Code(name: "malformed")

        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The file concerned.
    public let path: String
    /// What went wrong and what to do.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, path: String, _ reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// One line naming the file and the problem.
    public var description: String { "the uniform type table \(path) \(reason)" }
}
