import AppexKit
import Foundation

/// The ``Fault/observesHost`` fault: notes each of the host's lifecycle notifications for
/// the request, and completes with them once the host has become active.
@MainActor
final class HostObserver {
    private static var observers: [any NSObjectProtocol] = []
    private static var seen: [String] = []

    nonisolated static func observe(_ context: NSExtensionContext) {
        MainActor.assumeIsolated {
            let names: [NSNotification.Name] = [.NSExtensionHostWillResignActive, .NSExtensionHostDidEnterBackground,
                                                .NSExtensionHostWillEnterForeground, .NSExtensionHostDidBecomeActive]
            for name in names {
                observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: .main) { note in
                    let isContext = (note.object as? NSExtensionContext) === context
                    let name = note.name.rawValue + (isContext ? "" : " (another object)")
                    MainActor.assumeIsolated { noted(name, in: context) }
                })
            }
        }
    }

    private static func noted(_ name: String, in context: NSExtensionContext) {
        seen.append(name)
        guard name.hasPrefix(NSNotification.Name.NSExtensionHostDidBecomeActive.rawValue) else { return }
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: seen.joined(separator: "\n"))
        context.completeRequest(returningItems: [item])
    }
}
