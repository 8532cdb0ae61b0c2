// The widget the widget-update benchmark runs: each update sets a view of the size a real
// widget sends (a heading, a dozen rows, two bars, a link: 56 views, more than System Load),
// with a counter so that each is new, and answers `.newData`. The host's update round trip
// is then an `update` point message one way, and `content` and `updated` the other.
import AppexKit
import AppexToday

final class Handler: WidgetViewController, NCWidgetProviding {
    private var updates = 0

    func widgetPerformUpdate(completionHandler: @escaping @MainActor (NCUpdateResult) -> Void) {
        updates += 1
        let rows: [WidgetView] = (0..<12).map { .hstack([.text("Row \($0)", style: .caption), .spacer, .text("\(updates)", style: .monospacedDigits)]) }
        view = .vstack([.hstack([.image(.gauge, label: "Bench"), .text("Bench", style: .headline)])] + rows + [
            .progress(0.25, label: "a quarter"), .progress(0.75, label: "three quarters"),
            .link("bench://update/\(updates)", .text("Open", style: .caption, color: .accent)),
        ])
        completionHandler(.newData)
    }
}

NSExtensionMain()
