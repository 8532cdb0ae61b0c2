import AppexKit
import Foundation
import NotificationCenter

// A Today widget in the shape of Xcode's template: the view is rewritten as a WidgetView
// (docs/porting.md), the rest is as it was. It says when it appears and disappears in the
// group's defaults.
class TodayViewController: WidgetViewController, NCWidgetProviding {
    var count = 0

    override func viewDidLoad() {
        super.viewDidLoad()
        extensionContext?.widgetLargestAvailableDisplayMode = .expanded
        view = .text("Waiting", style: .body)
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        UserDefaults(suiteName: "group.com.example.faults")?.set("appearing", forKey: "widgetShown")
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        UserDefaults(suiteName: "group.com.example.faults")?.set("gone", forKey: "widgetShown")
    }

    func widgetPerformUpdate(completionHandler: (@escaping (NCUpdateResult) -> Void)) {
        count += 1
        // Settings shared with the containing app, as Apple's "Sharing Data with Your
        // Containing App" shares them; without the group's entitlement, the suite is private.
        let shared = UserDefaults(suiteName: "group.com.example.faults")
        shared?.set(count, forKey: "widgetUpdates")
        let headline = shared?.string(forKey: "headline") ?? "Updated"
        view = .text("\(headline) \(count) times", style: .body)
        completionHandler(NCUpdateResult.newData)
    }

    func widgetActiveDisplayModeDidChange(_ activeDisplayMode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize) {
        preferredContentSize = activeDisplayMode == .expanded ? CGSize(width: maxSize.width, height: 200) : maxSize
    }
}
