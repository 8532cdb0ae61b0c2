import AppexKit
import Foundation

/// Initialized once, on first use, slowly: a global outside `main.swift`, so Swift
/// initializes it lazily, under the runtime's lock for it, and a second thread that arrives
/// meanwhile waits on that lock.
let slowlyInitialized: String = {
    usleep(300_000)
    return "initialized"
}()

/// The principal class: completes each request with the global's value, as text, titled
/// with its bundle's folder and its process's name, as Foundation finds them.
class Handler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: slowlyInitialized)
        item.attributedTitle = NSAttributedString(string: "\(Bundle.main.bundleURL.lastPathComponent) \(ProcessInfo.processInfo.processName)")
        context.completeRequest(returningItems: [item])
    }
}
