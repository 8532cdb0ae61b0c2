public import AppexKit
public import Foundation

/// A Today widget's side of its context, as Apple's `NSExtensionContext (NCWidgetAdditions)`.
extension NSExtensionContext {
    /// The largest mode the widget supports. Set it to `.expanded` to let the user show more;
    /// it is `.compact` until then.
    @MainActor public var widgetLargestAvailableDisplayMode: NCWidgetDisplayMode {
        get { WidgetViewController.controller(of: self)?.largestAvailableDisplayMode ?? .compact }
        set { WidgetViewController.controller(of: self)?.largestAvailableDisplayMode = newValue }
    }

    /// The mode the widget is shown in.
    @MainActor public var widgetActiveDisplayMode: NCWidgetDisplayMode {
        WidgetViewController.controller(of: self)?.presentation.mode ?? .compact
    }

    /// The most room `displayMode` gives, in points: 110 high in compact, 616 in expanded,
    /// and the host's width.
    @MainActor public func widgetMaximumSize(for displayMode: NCWidgetDisplayMode) -> CGSize {
        (WidgetViewController.controller(of: self)?.presentation ?? WidgetPresentation(mode: .compact, width: 320)).maximumSize(for: displayMode)
    }
}
