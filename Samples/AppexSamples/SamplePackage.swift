public import Foundation
import Glibc

/// The samples' own package (Samples/Programs), which builds their apps and extensions as an
/// author's package builds them: each extension linked to the shared AppexKit, holding only
/// its own code. It is built on first use, once per process, beside the build of the running
/// program and in its configuration, sanitizer included.
public enum SamplePackage {
    /// The package's folder: Samples/Programs in the Appex checkout this was built from.
    public static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Programs")

    /// The folder that holds the built programs, built first if they are not yet, or
    /// out of date: `swift build` decides, and does nothing when nothing changed.
    public static func products() throws(SampleBuildError) -> URL {
        try built.get()
    }

    /// The build folder: `samples` in the running program's (``buildFolder(named:)``).
    public static var scratch: URL { buildFolder(named: "samples") }

    /// A build folder named `name` in the running program's, so that each configuration and
    /// each sanitizer's build has its own (`.build/samples`, `.build/sanitize-thread/samples`).
    public static func buildFolder(named name: String) -> URL {
        AppexBuild.products.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(name)
    }

    /// `swift build`'s options besides the folders: the running program's configuration (the
    /// name of its build folder), its sanitizer, and APPEX_SAMPLES_BUILD_OPTIONS, separated by
    /// spaces, which Support/sanitize sets to link ThreadSanitizer's suppressions into every program.
    static var options: [String] {
        var options = ["--configuration", AppexBuild.products.lastPathComponent]
        for (runtime, name) in [("__tsan_init", "thread"), ("__asan_init", "address")] where dlsym(nil, runtime) != nil {
            options.append("--sanitize=\(name)")
        }
        let extra = ProcessInfo.processInfo.environment["APPEX_SAMPLES_BUILD_OPTIONS"] ?? ""
        return options + extra.split(separator: " ").map(String.init)
    }

    /// The first caller builds; the others in the process wait for it.
    private static let built = Result { () throws(SampleBuildError) -> URL in try buildLikeTheRunningProgram(sources, into: scratch) }

    /// Builds the package at `package` into `scratch` in the running program's configuration
    /// and with its sanitizer (``options``), as the samples' package is built, and returns
    /// the folder that holds its programs: the package of an author's extension, or of test
    /// fixtures that must be built as one is.
    public static func buildLikeTheRunningProgram(_ package: URL, into scratch: URL) throws(SampleBuildError) -> URL {
        try build(package, into: scratch, options: options)
            .appendingPathComponent(AppexBuild.products.deletingLastPathComponent().lastPathComponent)
            .appendingPathComponent(AppexBuild.products.lastPathComponent)
    }

    /// Builds the package at `package` with `swift build OPTIONS`, into `scratch`, and returns
    /// `scratch`. Another process that builds there at the same time waits for SwiftPM's lock
    /// on the folder, which SwiftPM keeps in TMPDIR: the build's TMPDIR is the folder's own,
    /// so that every process shares that lock, and nothing is left in the caller's.
    static func build(_ package: URL, into scratch: URL, options: [String]) throws(SampleBuildError) -> URL {
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
            throw SampleBuildError.noSources(package)
        }
        guard let swift = SwiftToolchain.swift else { throw SampleBuildError.noSwift }
        let temporary = scratch.appendingPathComponent("tmp")
        try? FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        // Each process's build writes its own log, which is kept only if the build fails.
        let log = temporary.appendingPathComponent("build-\(getpid()).log")
        let arguments = ["build", "--package-path", package.path, "--scratch-path", scratch.path] + options
        let status: Int32
        do {
            try Data().write(to: log)
            let output = try FileHandle(forWritingTo: log)
            defer { try? output.close() }
            let build = Process()
            build.executableURL = swift
            build.arguments = arguments
            build.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
            build.standardInput = FileHandle.nullDevice
            build.standardOutput = output
            build.standardError = output
            try build.run()
            build.waitUntilExit()
            status = build.terminationReason == .exit ? build.terminationStatus : 128 + build.terminationStatus
        } catch {
            throw SampleBuildError.couldNotRun(swift, "\(error)")
        }
        guard status == 0 else {
            let tail = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(15).joined(separator: "\n") ?? ""
            throw SampleBuildError.failed(command: ([swift.path] + arguments).joined(separator: " "), status: status, log: log, tail: tail)
        }
        try? FileManager.default.removeItem(at: log)
        return scratch
    }
}

/// Why the samples' package, or another built as it is, could not be built: what failed,
/// and what to do.
public enum SampleBuildError: Error, Sendable, CustomStringConvertible {
    case noSources(URL)
    case noSwift
    case couldNotRun(URL, String)
    case failed(command: String, status: Int32, log: URL, tail: String)

    public var description: String {
        switch self {
        case .noSources(let folder):
            "no package is at \(folder.path) (no Package.swift there): the sample apps and the tests' fixtures are built from an Appex source checkout; run appex from one"
        case .noSwift:
            "no swift on PATH, nor in /opt/swift/usr/bin or /usr/bin, to build the sample apps' package with: install a Swift toolchain, or put it on PATH"
        case .couldNotRun(let swift, let reason):
            "couldn't run \(swift.path) to build a package: \(reason)"
        case .failed(let command, let status, let log, let tail):
            "building the package failed (status \(status)): \(command)\nIts whole output is in \(log.path); the end of it:\n\(tail)"
        }
    }
}
