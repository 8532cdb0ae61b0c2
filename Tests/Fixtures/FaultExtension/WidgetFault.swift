import AppexKit
import AppexToday
import Foundation

/// The principal class of the widget faults: a Today widget that behaves, or misbehaves, as
/// ``Fault/current`` says.
final class WidgetFault: WidgetViewController, NCWidgetProviding {
    private var updates = 0
    private var editing = false
    private var mode = NCWidgetDisplayMode.compact

    override func viewDidLoad() {
        extensionContext?.widgetLargestAvailableDisplayMode = .expanded
        render("Loaded")
        switch Fault.current {
        case .widgetMalformedView:
            _ = try? extensionContext?.pointChannel.send("content", body: Array("{not json".utf8))
        case .widgetHugeView:
            // Within a frame, but over what a widget's message may be.
            let text = String(repeating: "x", count: 400_000)
            _ = try? extensionContext?.pointChannel.send("content", body: Array("{\"view\":{\"type\":\"text\",\"text\":\"\(text)\"}}".utf8))
        case .widgetTooManyViews:
            view = .vstack((1...300).map { .text("Row \($0)") })   // refused by the widget's own check: logged, not sent
            let rows = (1...300).map { _ in "{\"type\":\"spacer\"}" }.joined(separator: ",")
            let body = "{\"view\":{\"type\":\"stack\",\"axis\":\"vertical\",\"children\":[\(rows)]},\"preferredHeight\":110,\"largestMode\":\"compact\",\"allowsEditing\":false,\"margins\":{\"top\":0,\"left\":16,\"bottom\":0,\"right\":16}}"
            // Sent after the controller has tried, and logged, its own content, so the host's
            // end of the widget can't come before that log line.
            DispatchQueue.main.async { [extensionContext] in
                _ = try? extensionContext?.pointChannel.send("content", body: Array(body.utf8))
            }
        default:
            break
        }
    }

    private func render(_ headline: String) {
        var rows: [WidgetView] = [
            .hstack([.image(.gauge, label: "Fault"), .text(headline, style: .headline), .spacer, .text("\(updates)", style: .monospacedDigits)]),
            .link("faultapp://item/\(updates)", .text("Open item \(updates)")),
            .link("nowhere://item", .text("Open elsewhere", color: .secondary)),
        ]
        if mode == .expanded { rows.append(.progress(0.5, label: "Half")) }
        if editing { rows.append(.text("Editing", style: .caption)) }
        view = .vstack(rows)
    }

    func widgetPerformUpdate(completionHandler: @escaping @Sendable (NCUpdateResult) -> Void) {
        switch Fault.current {
        case .widgetFails:
            completionHandler(.failed)
        case .widgetHangsUpdating:
            break
        default:
            // The update takes a moment, as one that reads its data does, so the host can ask
            // again while it runs.
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) {
                MainActor.assumeIsolated {
                    self.updates += 1
                    // Every other update finds nothing new, as a widget whose data hasn't changed.
                    guard self.updates % 2 == 1 else { return completionHandler(.noData) }
                    self.render("Update \(self.updates)")
                    completionHandler(.newData)
                    completionHandler(.newData)   // a second call is logged and ignored
                }
            }
        }
    }

    func widgetActiveDisplayModeDidChange(_ activeDisplayMode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize) {
        mode = activeDisplayMode
        let tall = Fault.current == .widgetTall ? 800.0 : 220.0
        preferredContentSize = activeDisplayMode == .expanded ? CGSize(width: maxSize.width, height: tall) : maxSize
        render("Mode \(activeDisplayMode) up to \(Int(maxSize.height))")
    }

    func widgetMarginInsets(forProposedMarginInsets defaultMarginInsets: NSEdgeInsets) -> NSEdgeInsets {
        NSEdgeInsets(top: defaultMarginInsets.top, left: 8, bottom: defaultMarginInsets.bottom, right: 8)
    }

    var widgetAllowsEditing: Bool { true }

    func widgetDidBeginEditing() {
        editing = true
        render("Editing began")
    }

    func widgetDidEndEditing() {
        editing = false
        render("Editing ended")
    }
}
