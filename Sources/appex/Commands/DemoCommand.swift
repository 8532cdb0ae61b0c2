import AppexBundles
import AppexCore
import AppexRegistry
import AppexSamples
import ArgumentParser
import Foundation

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Assemble and install the sample apps in a private home, then list, query, match, run requests and validate.",
        discussion: "Everything printed is computed as the demo runs. Your own Appex data is never touched."
    )

    @Option(help: "The demo's Appex home (default: a new temporary folder, removed afterwards).", completion: .directory)
    var home: String?

    @Flag(help: "Keep the demo home afterwards, to explore it with APPEX_HOME=… appex list.")
    var keep = false

    func run() async throws {
        let root = home.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appex-demo-\(UUID().uuidString.prefix(8))")
        defer {
            if !keep && home == nil { try? FileManager.default.removeItem(at: root) }
        }
        let demo = try Demo(root: root)
        try await demo.run()
        if keep || home != nil {
            print("\nThe demo home is kept: APPEX_HOME=\(root.appendingPathComponent("home").path) appex list -v")
        }
    }
}
