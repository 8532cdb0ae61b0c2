import AppexBundles
import AppexCore
import AppexRegistry
import AppexSamples
import Foundation

/// The demo: the whole story on the sample apps, in a private home. The apps are installed;
/// a text and a file are shared to Notes; actions run; the Today view shows the new note and
/// the live System Load widget; a link opens the Notes app. Then a tour of the registry. Each
/// step prints what the libraries compute, with how long it took, and the story's times are
/// summed up at the end.
final class Demo {
    let root: URL
    let registry: Registry
    let clock = ContinuousClock()
    /// The story's steps and how long each took, for the summary.
    private(set) var timings: [(step: String, took: Duration)] = []

    init(root: URL) throws {
        self.root = root
        do {
            registry = try Registry(home: AppexHome(root: root.appendingPathComponent("home")))
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The Today view's widgets, in the order the demo adds them.
    static let widgets = ["com.example.notes.widget", "com.example.monitor.widget"]

    func run() async throws {
        print("Appex demo, in a private home: \(registry.home.dataDirectory.path)")
        let apps = try assemble()
        try install(apps)
        do {
            try await tellTheStory()
        } catch {
            await stopDaemon()
            throw error
        }
        summarize()
        try tourTheRegistry()
        await stopDaemon()
    }

    /// Shares, runs actions, shows the Today view and follows a link, on real extension processes.
    private func tellTheStory() async throws {
        try await shareToNotes()
        try await runActions()
        try await showTheTodayView()
        try await listProcesses()
    }

    func heading(_ text: String) {
        print("\n== \(text)")
    }

    /// Runs `body`, and returns what it returned and how long it took, as text.
    func timed<T>(_ body: () throws -> T) rethrows -> (T, String) {
        var result: T?
        let elapsed = try clock.measure { result = try body() }
        return (result!, elapsed.shortText)
    }

    /// Runs `body` as the story's step `step`, and records how long it took.
    @discardableResult
    func step<T>(_ step: String, _ body: () async throws -> T) async rethrows -> T {
        let started = clock.now
        let result = try await body()
        record(step, clock.now - started)
        return result
    }

    func record(_ step: String, _ took: Duration) {
        timings.append((step, took))
    }

    func assemble() throws -> [URL] {
        heading("Build the sample apps' programs (swift build, in the package Samples/Programs)")
        print("  The first time takes a few minutes; then only what changed is built again.")
        let (products, buildTime) = try timed { () throws -> URL in
            do {
                return try SamplePackage.products()
            } catch {
                throw CommandFailure(status: CommandFailure.trouble, "error: \(error)")
            }
        }
        print("  \(products.path)  (\(buildTime))")
        heading("Assemble the sample apps from their templates and built products (appex bundle)")
        let (apps, time) = try timed { () throws -> [URL] in
            do {
                return try SampleApps.assemble(into: root.appendingPathComponent("build"))
            } catch {
                throw CommandFailure(status: CommandFailure.trouble, "error: \(error)")
            }
        }
        for app in apps {
            let inspection = BundleValidator(types: .system).validate(appAt: app)
            let plugIns = inspection.bundle?.extensions.map { $0.url.lastPathComponent } ?? []
            print("  \(app.lastPathComponent): \(plugIns.joined(separator: ", ")) — \(inspection.isValid ? "valid" : "NOT valid")")
            Output.diagnostics(inspection.diagnostics)
        }
        print("  (\(time))")
        return apps
    }

    func install(_ apps: [URL]) throws {
        heading("Install them, and add their widgets to the Today view (appex install, appex today add)")
        let started = clock.now
        for url in apps {
            let (app, time) = try timed { try RegistryAccess.run { () throws(RegistryError) in try registry.install(appAt: url) } }
            print("  \(app.displayName) (\(app.identifier)) \(app.shortVersion ?? "") with \(app.extensions.count) extension\(app.extensions.count == 1 ? "" : "s")  [\(time)]")
        }
        try RegistryAccess.run { () throws(RegistryError) in
            for widget in Self.widgets { try registry.addTodayWidget(widget) }
        }
        let names = try RegistryAccess.run { () throws(RegistryError) in
            var names: [String] = []
            for widget in try registry.todayWidgets() { names.append(try registry.extension(widget.identifier)?.displayName ?? widget.identifier) }
            return names
        }
        print("  The Today view shows: \(names.joined(separator: ", "))")
        record("install \(apps.count) apps", clock.now - started)
    }

    func summarize() {
        heading("The story's timings")
        let width = timings.map(\.step.count).max() ?? 0
        for (step, took) in timings {
            print("  \(step.padding(toLength: width, withPad: " ", startingAt: 0))  \(took.shortText)")
        }
    }
}
