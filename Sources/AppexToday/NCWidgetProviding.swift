public import Foundation

/// What a Today widget's principal class does for the Today view, as Apple's
/// `NCWidgetProviding`. Adopt it in a ``WidgetViewController`` subclass; every method has a
/// default, as every one of Apple's is optional.
///
/// ```swift
/// final class TodayViewController: WidgetViewController, NCWidgetProviding {
///     func widgetPerformUpdate(completionHandler: @escaping (NCUpdateResult) -> Void) {
///         guard let note = latestNote() else { return completionHandler(.failed) }
///         guard note != shown else { return completionHandler(.noData) }
///         view = .text(note)
///         completionHandler(.newData)
///     }
/// }
/// ```
@MainActor
public protocol NCWidgetProviding: AnyObject {
    /// Update the view, then call `completionHandler` once, on any thread, with what the
    /// update found: `.newData` replaces the Today view's snapshot, `.noData` keeps it,
    /// `.failed` keeps it marked stale. An update that isn't answered within
    /// ``WidgetSession/defaultUpdateDeadline`` (10 s) counts as failed.
    ///
    /// Apple's signature, which the forms Apple has documented over the years all implement:
    /// `@escaping (NCUpdateResult) -> Void`, `(@escaping (NCUpdateResult) -> Void)` and
    /// `@escaping @Sendable (NCUpdateResult) -> Void`.
    func widgetPerformUpdate(completionHandler: @escaping @Sendable (NCUpdateResult) -> Void)

    /// The `async` form of ``widgetPerformUpdate(completionHandler:)``, as Swift offers Apple's
    /// to implement: implement one or the other. The other's default calls this one.
    func widgetPerformUpdate() async -> NCUpdateResult

    /// The user changed the display mode; `maxSize` is the most room the new mode gives.
    /// Set `preferredContentSize` for the height you want in expanded mode.
    func widgetActiveDisplayModeDidChange(_ activeDisplayMode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize)

    /// The margins around the view: return `defaultMarginInsets` to keep the host's.
    func widgetMarginInsets(forProposedMarginInsets defaultMarginInsets: NSEdgeInsets) -> NSEdgeInsets

    /// Whether the widget has an edit mode in the Today view, as on OS X.
    var widgetAllowsEditing: Bool { get }

    /// The Today view entered edit mode: show the widget's settings.
    func widgetDidBeginEditing()

    /// The Today view left edit mode.
    func widgetDidEndEditing()
}

extension NCWidgetProviding {
    /// Answers what the `async` form answers.
    public func widgetPerformUpdate(completionHandler: @escaping @Sendable (NCUpdateResult) -> Void) {
        Task { completionHandler(await widgetPerformUpdate()) }
    }
    /// No update: the snapshot stays as it is.
    public func widgetPerformUpdate() async -> NCUpdateResult { .noData }
    public func widgetActiveDisplayModeDidChange(_ activeDisplayMode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize) {}
    public func widgetMarginInsets(forProposedMarginInsets defaultMarginInsets: NSEdgeInsets) -> NSEdgeInsets { defaultMarginInsets }
    public var widgetAllowsEditing: Bool { false }
    public func widgetDidBeginEditing() {}
    public func widgetDidEndEditing() {}
}
