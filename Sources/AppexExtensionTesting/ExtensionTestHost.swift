public import AppexCore
public import AppexGroups
public import AppexHost
public import AppexItems
import AppexBundles
public import Foundation
import Glibc

/// A host app for an extension author's tests: a private Appex with its own appexd, the
/// author's app installed in it, and requests made from the test as a host app makes them,
/// through the real runtime and sandbox.
///
/// ```swift
/// import AppexExtensionTesting
/// import Testing
///
/// @Test func uppercasesText() async throws {
///     let host = try await ExtensionTestHost(app: ExtensionTestHost.packageFolder(#filePath).appendingPathComponent("Bundle/Upper.app"))
///     let outcome = try await host.request("com.example.upper.action", items: [.text("hello")])
///     #expect(try await outcome.returnedText() == ["HELLO"])
/// }
/// ```
///
/// The app is assembled from its template and the built products, as `appex bundle` does,
/// and installed with `appex install`; appexd starts on the first request. Both programs are
/// found as hosts find appexd: `APPEX_CLI` and `APPEX_DAEMON`, else beside the test
/// executable, else on `PATH`. Everything is removed, and appexd stopped, by ``finish()``,
/// or when the host goes away.
public final class ExtensionTestHost: Sendable {
    /// The private home the app is installed in.
    public let home: AppexHome
    /// The installed app's identifier.
    public let appIdentifier: String
    private let root: URL

    /// `appex`, the command-line tool that installs the app.
    public static let cli = CompanionProgram(name: "appex", variable: "APPEX_CLI")

    /// Assembles `template` (a `NAME.app` folder of Info.plists and entitlements) with the
    /// executables in `products`, and installs it in a new private home. `settings` are the
    /// build settings expanded in its Info.plists; `MARKETING_VERSION` and
    /// `CURRENT_PROJECT_VERSION` are 1.0 and 1 unless given.
    public init(app template: URL, products: URL = ExtensionTestHost.productsFolder, settings: [String: String] = [:]) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("appex-test-host-\(UUID().uuidString.prefix(8))")
        home = AppexHome(root: root.appendingPathComponent("home"))
        do {
            let defaults = ["MARKETING_VERSION": "1.0", "CURRENT_PROJECT_VERSION": "1"]
            let app = try BundleAssembler(products: products, settings: defaults.merging(settings) { $1 })
                .assemble(template: template, into: root.appendingPathComponent("build"))
            appIdentifier = try Self.identifier(of: app)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try await Self.run(Self.cli, ["install", app.path], home: home)
        } catch {
            try? FileManager.default.removeItem(at: root)
            throw error
        }
    }

    deinit {
        for pid in home.daemonProcessIDs() { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: root)
    }

    /// Stops appexd, which ends the extensions it runs, and removes the home.
    public func finish() async {
        _ = await DaemonClient.stopDaemon(home: home)
        try? FileManager.default.removeItem(at: root)
    }

    // MARK: Requests

    /// The installed extension `identifier`, for a request of your own, a compose sheet
    /// (`ComposeSession.begin`) or a widget (`WidgetSession.begin`).
    public func `extension`(_ identifier: String) async throws -> NSExtension {
        try await NSExtension.extension(withIdentifier: identifier, home: home)
    }

    /// Sends `items` to the extension `identifier`, as a host app does, and returns how the
    /// request ended; throws if it has not ended within `timeout`.
    public func request(_ identifier: String, items: [NSExtensionItem], timeout: Duration = .seconds(30)) async throws -> ExtensionRequestOutcome {
        let target = try await self.extension(identifier)
        return try await withThrowingTaskGroup(of: ExtensionRequestOutcome?.self) { group in
            group.addTask { try await target.request(withInputItems: items) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let outcome = try await group.next() ?? nil else {
                throw ExtensionTestError("\(identifier) did not end its request within \(timeout); its output: `appex log \(identifier)` with APPEX_HOME=\(home.dataDirectory.path)")
            }
            return outcome
        }
    }

    // MARK: The app's groups

    /// The container of app group `group`, as the app and its extensions see it.
    public func groupContainer(_ group: String) -> URL {
        home.groupContainer(for: group)
    }

    /// The shared defaults of app group `group`, as the app reads them.
    public func groupDefaults(_ group: String) throws -> GroupDefaults {
        guard let defaults = GroupDefaults(suiteName: group, container: groupContainer(group)) else {
            throw ExtensionTestError("the shared defaults of \(group) can't be opened in \(groupContainer(group).path)")
        }
        return defaults
    }

    // MARK: Where things are

    /// The folder of the running test executable, where `swift build` puts the package's
    /// executables too.
    public static var productsFolder: URL { CompanionProgram.runningProgramDirectory }

    /// The package folder of a test file: pass `#filePath` from a file in `Tests/NAME/`.
    public static func packageFolder(_ testFile: String) -> URL {
        URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    // MARK: Internals

    private static func identifier(of app: URL) throws -> String {
        let info = try PropertyListValue(decoding: Data(contentsOf: app.appendingPathComponent("Info.plist")))
        guard let identifier = info["CFBundleIdentifier"]?.stringValue else {
            throw ExtensionTestError("\(app.path)/Info.plist has no CFBundleIdentifier")
        }
        return identifier
    }

    /// Runs `program` with `arguments` for `home`, and throws with what it said if it fails.
    private static func run(_ program: CompanionProgram, _ arguments: [String], home: AppexHome) async throws {
        guard let path = program.locate() else {
            throw ExtensionTestError("\(program.notFound.message). \(program.notFound.suggestion)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["APPEX_HOME": home.dataDirectory.path]) { $1 }
        let log = home.dataDirectory.deletingLastPathComponent().appendingPathComponent("\(program.name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ExtensionTestError("`\(program.name) \(arguments.joined(separator: " "))` failed with status \(status): \(said)")
        }
    }
}

/// Why an ``ExtensionTestHost`` could not do what a test asked, and what to do.
public struct ExtensionTestError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
