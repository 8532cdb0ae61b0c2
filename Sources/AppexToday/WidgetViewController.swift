public import AppexKit
import AppexWire
public import Foundation

/// The principal class of a Today widget: it holds the widget's ``view`` and
/// `preferredContentSize`, as the `UIViewController` of Apple's widgets does, and the host
/// draws them. Subclass it, adopt ``NCWidgetProviding``, and set ``view``.
///
/// ```swift
/// final class TodayViewController: WidgetViewController, NCWidgetProviding {
///     override func viewDidLoad() {
///         extensionContext?.widgetLargestAvailableDisplayMode = .expanded
///         view = .text("Loading…", style: .caption)
///     }
///     func widgetActiveDisplayModeDidChange(_ mode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize) {
///         preferredContentSize = mode == .expanded ? CGSize(width: 0, height: 220) : maxSize
///     }
/// }
/// ```
///
/// Each showing of the widget in a Today view is one request, and gets its own controller,
/// made with `init()`. The request lasts while the widget is shown: the controller sends its
/// view each time it changes, and the request completes when the Today view closes. The
/// view's life runs as UIKit's does (``ExtensionViewController``): `viewDidLoad()` and
/// `viewWillAppear(_:)` before the host first draws the widget, `viewDidAppear(_:)` after,
/// and `viewWillDisappear(_:)` and `viewDidDisappear(_:)` when the Today view closes.
@MainActor
open class WidgetViewController: ExtensionViewController, @MainActor NSExtensionRequestHandling {
    /// What the widget shows. Setting it sends it to the host.
    public var view: WidgetView = .vstack([]) { didSet { setNeedsContentUpdate() } }
    /// The height the widget wants in expanded mode, in points; the width is the host's.
    /// A height over 616 is clipped to it, and logged.
    public var preferredContentSize = CGSize(width: 0, height: NCWidgetDisplayMode.compactHeight) { didSet { setNeedsContentUpdate() } }

    var presentation = WidgetPresentation(mode: .compact, width: 320)
    var largestAvailableDisplayMode = NCWidgetDisplayMode.compact { didSet { setNeedsContentUpdate() } }
    private var isPresented = false
    private var updateScheduled = false
    private var isEditing = false
    /// The sequence numbers of the host's updates that the running `widgetPerformUpdate`
    /// answers, until its handler is called; empty when none runs.
    private var pendingUpdates: [UInt64] = []

    /// Makes the controller; the request's ``beginRequest(with:)`` attaches it.
    public override init() {
        super.init()
    }

    // `viewDidLoad()` runs before the widget is first drawn in this request: set up ``view`` there.

    // MARK: The request

    /// Attaches the controller to `context`'s request, and waits for the host to present
    /// it. An override must call `super`, as on Apple's systems.
    open func beginRequest(with context: NSExtensionContext) {
        extensionContext = context
        guard context.pointChannel.isAvailable else {
            context.cancelRequest(withError: WidgetUnavailable(message: "this host speaks a protocol without point messages, so it can't show a Today widget"))
            return
        }
        Self.shown = Self.shown.filter { $0.value.controller != nil }
        Self.shown[ObjectIdentifier(context)] = Shown(controller: self)
        context.pointChannel.setHandler { [self] message in receive(message) }
        send(.ready)
    }

    private func receive(_ message: PointMessage) {
        let event: WidgetMessage
        do throws(WidgetMessageError) {
            event = try WidgetMessage(name: message.name, body: message.body)
        } catch {
            return ExtensionLog.write("the host sent a widget message that can't be read; ignored: \(error)")
        }
        let provider = self as? any NCWidgetProviding
        switch event {
        case .present(let presentation):
            guard !isPresented else { return ExtensionLog.write("the host presented the widget twice; the second is ignored") }
            self.presentation = presentation
            appear {
                isPresented = true
                if presentation.mode == .expanded {
                    provider?.widgetActiveDisplayModeDidChange(.expanded, withMaximumSize: presentation.maximumSize(for: .expanded))
                }
                sendContent()
            }
        case .update:
            performUpdate(answering: message.sequence, provider: provider)
        case .displayMode(let mode):
            guard mode != presentation.mode else { return }
            presentation.mode = mode
            provider?.widgetActiveDisplayModeDidChange(mode, withMaximumSize: presentation.maximumSize(for: mode))
            setNeedsContentUpdate()
        case .followLink(let url):
            follow(url)
        case .editing(let editing):
            guard editing != isEditing, provider?.widgetAllowsEditing == true else { return }
            isEditing = editing
            if editing { provider?.widgetDidBeginEditing() } else { provider?.widgetDidEndEditing() }
        case .dismiss:
            disappear()
            extensionContext?.completeRequest(returningItems: nil, completionHandler: nil)
        case .ready, .content, .updated, .linkOpened:
            ExtensionLog.write("the host sent \(message.name), which only a widget sends; ignored")
        }
    }

    private func performUpdate(answering sequence: UInt64, provider: (any NCWidgetProviding)?) {
        guard let provider else { return answer(.noData, to: [sequence]) }
        // An update asked for while one runs gets that one's answer.
        pendingUpdates.append(sequence)
        guard pendingUpdates.count == 1 else { return }
        let update = UpdateInProgress()
        provider.widgetPerformUpdate { [weak self] result in
            // Apple lets the widget call this on any thread; the answer goes from the main one.
            Self.onMainThread {
                guard let self else { return }
                guard !update.isAnswered else {
                    return ExtensionLog.write("widgetPerformUpdate's completion handler was called more than once; the first call counts")
                }
                update.isAnswered = true
                let sequences = self.pendingUpdates
                self.pendingUpdates.removeAll()
                self.answer(result, to: sequences)
            }
        }
    }

    /// Whether the running update has been answered.
    @MainActor private final class UpdateInProgress {
        var isAnswered = false
    }

    /// Runs `body` on the main thread: now if this is it, else as soon as it is free.
    private nonisolated static func onMainThread(_ body: @escaping @MainActor @Sendable () -> Void) {
        if Thread.isMainThread {
            MainActor.assumeIsolated(body)
        } else {
            DispatchQueue.main.async { MainActor.assumeIsolated(body) }
        }
    }

    private func answer(_ result: NCUpdateResult, to sequences: [UInt64]) {
        if result == .newData || updateScheduled { sendContent() }
        for sequence in sequences { send(.updated(result, answering: sequence)) }
    }

    private func follow(_ url: String) {
        guard view.links.contains(url), let parsed = URL(string: url) else {
            return send(.linkOpened(url, opened: false, reason: "the widget's view has no link to \(url)"))
        }
        Task { @MainActor in
            guard let context = extensionContext else { return }
            let answer = await context.openURL(parsed)
            send(.linkOpened(url, opened: answer.opened, reason: answer.reason))
        }
    }

    // MARK: Sending

    /// Sends the content soon, once, with every change made meanwhile.
    private func setNeedsContentUpdate() {
        guard isPresented, !updateScheduled else { return }
        updateScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.updateScheduled else { return }
                self.sendContent()
            }
        }
    }

    private func sendContent() {
        updateScheduled = false
        let provider = self as? any NCWidgetProviding
        let margins = provider.map { WidgetMargins($0.widgetMarginInsets(forProposedMarginInsets: presentation.margins.insets)) } ?? presentation.margins
        let height = Double(preferredContentSize.height)
        if presentation.mode == .expanded, height > NCWidgetDisplayMode.expandedHeights.upperBound {
            ExtensionLog.write("preferredContentSize asks for \(Int(height)) points, more than expanded's \(Int(NCWidgetDisplayMode.expandedHeights.upperBound)): the widget is clipped to it")
        }
        if let problem = view.problem {
            ExtensionLog.write("the widget's view can't be drawn, so the host keeps what it has: \(problem)")
            return
        }
        send(.content(WidgetContent(view: view, preferredHeight: height.isFinite ? height : NCWidgetDisplayMode.compactHeight,
                                    largestMode: largestAvailableDisplayMode, allowsEditing: provider?.widgetAllowsEditing ?? false,
                                    margins: margins)))
    }

    private func send(_ message: WidgetMessage) {
        guard let context = extensionContext, context.pointChannel.isOpen else { return }
        do throws(PointChannelError) {
            try context.pointChannel.send(message.name, body: message.body)
        } catch {
            // The host can't show what it doesn't get (too large for a frame, or the session
            // gone): end the request rather than leave the Today view waiting.
            ExtensionLog.write("\(message.name) could not be sent, so the request is cancelled: \(error)")
            context.cancelRequest(withError: WidgetUnavailable(message: "the widget's \(message.name) could not be sent: \(error)"))
        }
    }

    // MARK: Every shown widget

    struct Shown {
        weak var controller: WidgetViewController?
    }

    /// The controllers of the requests being shown, by context, for the context's widget
    /// properties. The point channel's handler holds each controller until its request is
    /// answered; this only finds it.
    static var shown: [ObjectIdentifier: Shown] = [:]

    /// The controller showing `context`'s request.
    static func controller(of context: NSExtensionContext) -> WidgetViewController? {
        shown[ObjectIdentifier(context)]?.controller
    }
}

/// The host can't show the widget: the request's cancellation error.
public struct WidgetUnavailable: LocalizedError {
    public var message: String
    public var errorDescription: String? { message }
}
