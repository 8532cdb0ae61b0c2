// The System Load widget: the System Monitor app's Today widget, with live data. While a
// Today view shows it, it reads the system each second and sends its view again, so the
// clock ticks and the load moves without the host asking; an update from the host reads it
// at once. Compact mode shows the time and the load; expanded adds memory and uptime.
// Its links open the System Monitor app at a section: monitor://load, monitor://memory.
import AppexKit
import Foundation
import MonitorKit
import NotificationCenter

class TodayViewController: WidgetViewController, NCWidgetProviding {
    private var expanded = false
    private var ticking: Task<Void, Never>?

    override func viewDidLoad() {
        super.viewDidLoad()
        extensionContext?.widgetLargestAvailableDisplayMode = .expanded
        show(SystemReading.now())
        // Each second, on the second, while the request lasts: the task holds the controller
        // weakly, so it ends with it.
        ticking = Task { @MainActor [weak self] in
            while !Task.isCancelled {
                let now = Date().timeIntervalSince1970
                try? await Task.sleep(for: .seconds(now.rounded(.down) + 1 - now))
                guard let self else { return }
                self.show(SystemReading.now())
            }
        }
    }

    deinit {
        ticking?.cancel()
    }

    /// Every reading is news: the time moves on.
    func widgetPerformUpdate(completionHandler: @escaping (NCUpdateResult) -> Void) {
        guard let reading = SystemReading.now() else { return completionHandler(.failed) }
        show(reading)
        completionHandler(.newData)
    }

    func widgetActiveDisplayModeDidChange(_ activeDisplayMode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize) {
        expanded = activeDisplayMode == .expanded
        show(SystemReading.now())
    }

    private func show(_ reading: SystemReading?) {
        guard let reading else {
            view = .text("/proc can't be read, so there is nothing to show.", style: .caption, color: .red)
            return
        }
        let busy = reading.loadPerCore
        var rows: [WidgetView] = [
            .hstack([.image(.gauge, label: "Load"), .text("System Load", style: .headline), .spacer, .text(reading.clock, style: .monospacedDigits)]),
            .link("monitor://load", .hstack([.text("Load", style: .caption), .text(reading.loadText, style: .monospacedDigits,
                                                                                  color: busy >= 1 ? .red : busy >= 0.7 ? .orange : .green)])),
            // The bar is how busy the cores are, full at one task per core; past that, the load
            // above turns red and says by how much.
            .progress(min(busy, 1), label: "\(reading.cores) cores busy"),
        ]
        if expanded {
            rows += [
                .divider,
                .link("monitor://memory", .hstack([.text("Memory", style: .caption), .text(reading.memoryText, style: .monospacedDigits)])),
                .progress(reading.memoryUsed, label: "In use"),
                .text("Up \(reading.uptimeText) · \(reading.tasks) tasks", style: .caption, color: .secondary),
            ]
        }
        view = .vstack(rows)
        // Rows are 22 points: the compact rows fit its 110; expanded has four more.
        preferredContentSize = CGSize(width: 0, height: Double(22 * rows.count))
    }
}
