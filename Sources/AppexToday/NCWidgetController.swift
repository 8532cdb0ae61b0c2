import AppexIPC
import AppexSystem
import AppexWire
import Foundation

/// Says whether a Today widget has content to show, as Apple's `NCWidgetController` does.
/// The widget, or the app that contains it, may say so at any time, whether or not the widget
/// runs, and the setting persists. A widget without content is hidden in the Today view and
/// not launched, and its last snapshot no longer counts; it shows again once it has content.
///
/// ```swift
/// // In the Notes app, once the last note is deleted:
/// NCWidgetController.widgetController().setHasContent(false, forWidgetWithBundleIdentifier: "com.example.notes.widget")
/// ```
///
/// appexd keeps the setting, and it finds who is asking from the kernel. The widget and its
/// containing app are heard, as on Apple's systems, and so are that app's other extensions,
/// so that a Share extension that files a note can show the widget that lists notes.
public final class NCWidgetController: Sendable {
    /// A widget controller, for the widget or its containing app.
    public static func widgetController() -> NCWidgetController {
        NCWidgetController()
    }

    public init() {}

    /// Sets whether the widget `bundleID` has content to display (true by default). Apple's
    /// call returns nothing; here a setting appexd refuses, or can't hear, is written to
    /// standard error with the reason. ``updateHasContent(_:forWidgetWithBundleIdentifier:)``
    /// throws it instead.
    public func setHasContent(_ flag: Bool, forWidgetWithBundleIdentifier bundleID: String) {
        do {
            try updateHasContent(flag, forWidgetWithBundleIdentifier: bundleID)
        } catch {
            StandardError.write(line: "NCWidgetController: \(error)")
        }
    }

    /// Sets whether the widget `bundleID` has content to display, and waits until appexd has
    /// kept the setting; throws why it was not kept.
    public func updateHasContent(_ flag: Bool, forWidgetWithBundleIdentifier bundleID: String) throws(WidgetContentError) {
        let answer = DaemonCalls.call(needing: WireVersion.widgetContent) {
            .widgetHasContent(WidgetHasContent(call: $0, widgetIdentifier: bundleID, hasContent: flag))
        }
        let reason: String
        switch answer {
        case .success(.widgetHasContentResult(let result)) where result.reason.isEmpty: return
        case .success(.widgetHasContentResult(let result)): reason = result.reason
        case .success(.failure(let failure)): reason = failure.error.message
        case .success(let other): reason = "appexd answered \(other.name)"
        case .failure(let error): reason = error.reason
        }
        throw WidgetContentError(widget: bundleID, hasContent: flag, reason: reason)
    }
}

/// Why appexd did not keep a widget's content setting.
public struct WidgetContentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The widget named.
    public var widget: String
    /// The setting asked for.
    public var hasContent: Bool
    /// What appexd said, or why it could not be asked.
    public var reason: String

    public var description: String {
        "\(widget) was not set to \(hasContent ? "have" : "have no") content: \(reason)"
    }
}
