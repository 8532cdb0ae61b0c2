import AppexBundles
import AppexCore
import AppexRegistry
import AppexSamples
import ArgumentParser
import Foundation

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The whole story on the sample apps, in a private home: install, share, act, the Today view, a link.",
        discussion: """
            The sample apps are installed; a text and a file are shared to Notes; actions run on a text and a file; \
            the Today view shows the new note and the live System Load widget; its link opens the Notes app. Each \
            step says how long it took. Then a tour of the registry: list, query, match, the user's choices, a broken \
            bundle validated, an uninstall. Everything printed is computed as the demo runs. With --interactive you \
            drive the same steps, in the same terminal UIs as appex share, appex action and appex today. Your own \
            Appex data is never touched.
            """
    )

    @Option(help: "The demo's Appex home (default: a new temporary folder, removed afterwards).", completion: .directory)
    var home: String?

    @Flag(help: "Keep the demo home afterwards, to explore it with APPEX_HOME=… appex list.")
    var keep = false

    @Flag(help: "Drive the steps yourself, in this terminal.")
    var interactive = false

    func run() async throws {
        if interactive, Terminal.standard() == nil {
            throw CommandFailure(status: CommandFailure.trouble, "appex demo --interactive needs a terminal to drive it in; without one, appex demo shows the same story")
        }
        let root = home.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appex-demo-\(UUID().uuidString.prefix(8))")
        defer {
            if !keep && home == nil { Self.remove(root) }
        }
        let demo = try Demo(root: root)
        try await interactive ? demo.runInteractively() : demo.run()
        if keep || home != nil {
            print("\nThe demo home is kept: APPEX_HOME=\(root.appendingPathComponent("home").path) appex list -v")
        }
    }

    /// Removes the demo's home; tries again for a while if something still wrote into it as
    /// it went (an extension or app launched by a step, ending late), and says so if it stays.
    private static func remove(_ root: URL) {
        for _ in 0..<50 {
            do {
                try FileManager.default.removeItem(at: root)
                return
            } catch {
                guard FileManager.default.fileExists(atPath: root.path) else { return }
                usleep(100_000)
            }
        }
        FileHandle.standardError.write(Data("appex demo: \(root.path) could not be removed; remove it by hand\n".utf8))
    }
}
