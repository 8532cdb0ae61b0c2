import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import ArgumentParser

/// What every terminal host (`appex share`, `appex action`) takes besides the content: which
/// extension, how long to wait for it, and JSON; and how it picks the extension.
struct HostOptions: ParsableArguments {
    @Option(help: "The extension to send to, by bundle identifier; skips the list.", completion: Completions.extensions)
    var to: String?

    @Option(help: "Give up on an extension that doesn't answer after this many seconds; 0 waits for ever.")
    var timeout: Double = 60

    @Flag(help: "Print JSON; never asks.")
    var json = false

    /// The terminal to ask on: none with `--json`, or when standard input or output isn't one.
    var terminal: Terminal? { json ? nil : Terminal.standard() }

    /// The extension of `points` that accepts `items` and that `--to` names or the user picks,
    /// the points' extensions listed in that order.
    func chooseExtension(of points: [ExtensionPoint], for items: [NSExtensionItem], content: String, command: String,
                         on terminal: Terminal?) async throws -> NSExtension {
        do {
            var candidates: [NSExtension] = []
            for point in points { candidates += try await NSExtension.extensions(ofPoint: point.id, matching: items) }
            return try ExtensionChooser(command: command, points: points, content: content, registry: try? Registry(home: .current))
                .choose(from: candidates, to: to, terminal: terminal)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(ErrorText.describe(error))")
        }
    }
}
