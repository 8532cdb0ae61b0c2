public import AppexCore
public import AppexHost
public import AppexItems
import AppexRegistry
import AppexTesting
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The executables this package builds beside every benchmark: appexd (from the main
/// package), the benchmark extension and the baseline program.
public enum BuiltProducts {
    /// The folder of the running benchmark's executable, where SwiftPM put its dependencies.
    public static var folder: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The executable `name` in ``folder``; throws if it wasn't built.
    public static func executable(_ name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw BenchmarkFailure("\(url.path) is missing: run the benchmarks with `swift package benchmark`, which builds it")
        }
        return url
    }
}

/// A private home with the benchmark extension installed, served by an appexd of its own
/// that the host library starts on demand: the fixture of the runtime benchmarks.
///
/// appexd takes its settings from the environment of the process that starts it, so make the
/// home before the first request, with the idle grace period the benchmark needs, and call
/// ``stop()`` in teardown: the daemon is detached and would outlive the benchmark.
public final class RuntimeHome {
    /// The benchmark extension's bundle identifier.
    public static let extensionIdentifier = "com.example.bench.echo"
    /// The benchmark widget's, installed with `widget: true`.
    public static let widgetIdentifier = "com.example.bench.widget"

    /// Removed in `deinit`, then synced, so its deletion isn't written back while the next
    /// benchmark measures.
    private var folder: TemporaryDirectory?
    /// The home, in a temporary folder.
    public let home: AppexHome

    /// Installs the benchmark extension into a new home. `idleGraceMilliseconds` overrides
    /// every point's idle grace period (`APPEX_IDLE_GRACE_MS`); 0 ends an extension process
    /// on the daemon's next tick after its last request, so every request starts cold.
    /// `sandboxOff` has its appexd launch extensions with no sandbox (`APPEX_SANDBOX=off`),
    /// to measure what the sandbox costs. `widget` installs the benchmark widget too
    /// (`Tools/BenchWidget`, which the benchmark must depend on). `sharedRuntime` installs the
    /// benchmark extension linked to the shared Swift runtime (`Tools/BenchSharedExtension`)
    /// and has appexd fork it from its launcher (`appex-launcher`, docs/zygote.md), both of
    /// which the benchmark must depend on; otherwise appexd starts no launcher.
    public init(idleGraceMilliseconds: Int? = nil, sandboxOff: Bool = false, widget: Bool = false, sharedRuntime: Bool = false) throws {
        let folder = try TemporaryDirectory(prefix: "appex-bench-runtime")
        home = AppexHome(root: folder.url.appendingPathComponent("home"))
        let scratch = folder.url.appendingPathComponent("scratch")
        self.folder = consume folder
        ChildProcess.dropPreload()
        setenv("APPEX_DAEMON", try BuiltProducts.executable("appexd").path, 1)
        if sandboxOff { setenv("APPEX_SANDBOX", "off", 1) } else { unsetenv("APPEX_SANDBOX") }
        setenv("APPEX_LAUNCHER", sharedRuntime ? try BuiltProducts.executable("appex-launcher").path : "off", 1)
        if let idleGraceMilliseconds {
            setenv("APPEX_IDLE_GRACE_MS", "\(idleGraceMilliseconds)", 1)
        } else {
            unsetenv("APPEX_IDLE_GRACE_MS")
        }
        let app = try Self.writeApp(in: scratch, widget: widget, sharedRuntime: sharedRuntime)
        _ = try Registry(home: home).install(appAt: app)
        // Installing writes the extension's executable (tens of MB) into the home: flush it
        // now, in setup, rather than during the measurements that follow.
        sync()
    }

    deinit {
        folder = nil
        sync()
    }

    /// An app with the benchmark extension, an Action whose rule accepts anything, and with
    /// `widget`, the benchmark widget.
    private static func writeApp(in folder: URL, widget: Bool, sharedRuntime: Bool) throws -> URL {
        var builder = BundleBuilder.app("com.example.bench", name: "Bench", in: folder)
        builder.addExtension("BenchExtension", identifier: extensionIdentifier, point: ExtensionPoint.action.id,
                             attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"])
        if sharedRuntime, case .dictionary(var manifest)? = builder.plugIns[0].info["NSExtension"] {
            // The class is named after the module, which is the shared build's.
            manifest["NSExtensionPrincipalClass"] = "BenchSharedExtension.Handler"
            builder.plugIns[0].info["NSExtension"] = .dictionary(manifest)
        }
        if widget { builder.addExtension("BenchWidget", identifier: widgetIdentifier, point: ExtensionPoint.today.id) }
        let url = try builder.write()
        for name in widget ? ["BenchExtension", "BenchWidget"] : ["BenchExtension"] {
            let executable = url.appendingPathComponent("PlugIns/\(name).appex/\(name)")
            let built = try BuiltProducts.executable(sharedRuntime && name == "BenchExtension" ? "BenchSharedExtension" : name)
            try FileManager.default.removeItem(at: executable)
            // A hard link where it can (the install copies it anyway), a copy across file systems.
            if link(built.path, executable.path) != 0 {
                try FileManager.default.copyItem(at: built, to: executable)
            }
        }
        return url
    }

    /// The benchmark extension, as a host finds it (this starts appexd).
    public func benchExtension() async throws -> NSExtension {
        try await NSExtension.extension(withIdentifier: Self.extensionIdentifier, home: home)
    }

    /// The benchmark extension with its process running, for warm requests: one request
    /// launches it.
    public func warmBenchExtension() async throws -> NSExtension {
        let bench = try await benchExtension()
        _ = try BenchReply(await bench.request(withInputItems: BenchItems.text()))
        return bench
    }

    /// Waits until appexd says its launcher is ready (docs/zygote.md): a launch before then is
    /// spawned. Start appexd first (``benchExtension()``).
    public func waitForLauncher(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let log = (try? String(contentsOf: home.daemonLogURL, encoding: .utf8)) ?? ""
            if log.contains(" is ready: it starts extensions linked to ") { return }
            guard ContinuousClock.now < deadline else { throw BenchmarkFailure("appexd's launcher was not ready after \(timeout): \(log)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The benchmark widget, as a host finds it (this starts appexd).
    public func benchWidget() async throws -> NSExtension {
        try await NSExtension.extension(withIdentifier: Self.widgetIdentifier, home: home)
    }

    /// The pid of the home's appexd, starting it if it isn't running.
    public func daemonPID() async throws -> Int32 {
        let client = try await DaemonClient.connect(home: home)
        defer { client.close() }
        return client.daemonPID
    }

    /// The host pids of the programs of the live extension processes, as appexd lists them.
    /// appexd holds a sandboxed extension's pid-namespace init, whose child runs the program;
    /// the pid the extension itself reports is its pid in that namespace, which means
    /// nothing here.
    public func extensionProgramIDs() async throws -> [Int32] {
        let client = try await DaemonClient.connect(home: home, startIfNeeded: false)
        defer { client.close() }
        return try await client.processes().map { process in
            let children = (try? String(contentsOfFile: "/proc/\(process.pid)/task/\(process.pid)/children", encoding: .utf8)) ?? ""
            return children.split(separator: " ").compactMap { Int32($0) }.first ?? process.pid
        }
    }

    /// Waits until appexd has no extension process left, so that the next request starts cold.
    public func waitUntilNoExtensionProcess(timeout: Duration = .seconds(5)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !(try await extensionProgramIDs()).isEmpty {
            guard ContinuousClock.now < deadline else { throw BenchmarkFailure("an extension process was still running after \(timeout)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Stops the home's appexd, if it runs, and waits until it (and so its extensions) exited.
    public func stop() async {
        await DaemonClient.stopDaemon(home: home, timeout: .seconds(5))
    }
}

/// What the benchmark extension answered: when its `beginRequest` ran, its pid, when its
/// process reached its top-level code, and what it adds (byte 0 of a loaded attachment, or
/// whether a type conformed).
public struct BenchReply: Sendable {
    /// CLOCK_MONOTONIC at the start of `beginRequest`, in nanoseconds.
    public let began: UInt64
    /// Its pid as it sees it: in a sandbox, its pid namespace's (see ``RuntimeHome/extensionProgramIDs()``).
    public let pid: Int32
    /// CLOCK_MONOTONIC when the extension's `main.swift` started running, in nanoseconds.
    public let mainStarted: UInt64
    public let extra: String

    /// Parses the content text of the one item the extension returns.
    public init(_ outcome: ExtensionRequestOutcome) throws {
        guard case .completed(let items) = outcome else { throw BenchmarkFailure("the request did not complete: \(outcome)") }
        try self.init(text: items.first?.attributedContentText?.string ?? "")
    }

    /// Parses "BEGAN PID MAIN EXTRA".
    public init(text: String) throws {
        let fields = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, let began = UInt64(fields[0]), let pid = Int32(fields[1]), let mainStarted = UInt64(fields[2]) else {
            throw BenchmarkFailure("the extension answered \"\(text)\", not \"BEGAN PID MAIN EXTRA\"")
        }
        self.began = began
        self.pid = pid
        self.mainStarted = mainStarted
        self.extra = String(fields[3])
    }
}

/// Items the runtime benchmarks send.
public enum BenchItems {
    /// One item with one text attachment, which the extension doesn't load: a small request.
    public static func text(_ content: String? = nil) -> [NSExtensionItem] {
        let item = NSExtensionItem()
        if let content { item.attributedContentText = NSAttributedString(string: content) }
        item.attachments = [NSItemProvider(object: "hello")]
        return [item]
    }

    /// One item whose attachment is the file at `url`, as `public.data`.
    public static func file(_ url: URL) -> [NSExtensionItem] {
        let item = NSExtensionItem()
        item.attachments = [NSItemProvider(contentsOf: url, contentType: .data)]
        return [item]
    }
}
