import AppexSamples
public import Foundation

/// Type-checks Swift sources with swiftc against the modules this build made, as a
/// package that depends on Appex compiles them: for tests that code written for Apple's
/// platforms compiles, or that app-only API doesn't, in a given language mode.
public enum SwiftTypeCheck {
    /// The compiler, where this machine has one.
    public static let swiftc = SwiftToolchain.swiftc

    /// The C modules that Appex's Swift modules import.
    static let cModules = ["CAppexKit", "CAppexLocking", "CAppexSystem"]

    /// Type-checks `sources` in `languageMode` (5 or 6). A source named `main.swift` holds
    /// top-level code, as an extension's does.
    public static func run(_ sources: [URL], languageMode: Int = 6) async throws -> CommandRunner.Result {
        guard let swiftc else { throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no swiftc on this machine"]) }
        let products = AppexBuild.products
        let moduleMaps = cModules.map { products.appendingPathComponent("\($0).build/module.modulemap").path }
        let arguments = ["-typecheck", "-swift-version", "\(languageMode)", "-I", products.appendingPathComponent("Modules").path]
            + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + sources.map(\.path)
        return try await CommandRunner(executable: swiftc, environment: ["PATH": "/usr/bin:/bin"]).run(arguments)
    }

    /// Type-checks `code`, written to a file of its own, in `languageMode`.
    public static func run(code: String, languageMode: Int = 6) async throws -> CommandRunner.Result {
        let folder = try TemporaryDirectory()
        let source = folder.url.appendingPathComponent("Extension.swift")
        try Data(code.utf8).write(to: source)
        return try await run([source], languageMode: languageMode)
    }
}
