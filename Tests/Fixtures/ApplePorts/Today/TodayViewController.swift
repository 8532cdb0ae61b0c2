import AppexKit
import Foundation
import NotificationCenter

// A Today widget in the shape of Xcode's template: the view is rewritten as a WidgetView
// (docs/porting.md), the rest is as it was.
class TodayViewController: WidgetViewController, NCWidgetProviding {
    var count = 0

    override func viewDidLoad() {
        super.viewDidLoad()
        extensionContext?.widgetLargestAvailableDisplayMode = .expanded
        view = .text("Waiting", style: .body)
    }

    func widgetPerformUpdate(completionHandler: (@escaping (NCUpdateResult) -> Void)) {
        count += 1
        view = .text("Updated \(count) times", style: .body)
        completionHandler(NCUpdateResult.newData)
    }

    func widgetActiveDisplayModeDidChange(_ activeDisplayMode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize) {
        preferredContentSize = activeDisplayMode == .expanded ? CGSize(width: maxSize.width, height: 200) : maxSize
    }
}
