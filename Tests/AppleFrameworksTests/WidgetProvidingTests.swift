import AppexKit
import Foundation
import NotificationCenter
import Testing

/// A Today widget's update, written exactly as Apple documents it, is the one called. The
/// review's widget wrote `(@escaping (NCUpdateResult) -> Void)`: it compiled, and Appex's
/// requirement, isolated to the main actor, left it uncalled for the default's `.noData`.
@Suite @MainActor struct WidgetProvidingTests {
    final class ParenthesizedTodayViewController: WidgetViewController, NCWidgetProviding {
        func widgetPerformUpdate(completionHandler: (@escaping (NCUpdateResult) -> Void)) {
            completionHandler(NCUpdateResult.newData)
        }
    }

    final class PlainTodayViewController: WidgetViewController, NCWidgetProviding {
        func widgetPerformUpdate(completionHandler: @escaping (NCUpdateResult) -> Void) {
            completionHandler(.failed)
        }
    }

    final class SendableTodayViewController: WidgetViewController, NCWidgetProviding {
        func widgetPerformUpdate(completionHandler: @escaping @Sendable (NCUpdateResult) -> Void) {
            DispatchQueue.global().async { completionHandler(.newData) }
        }
    }

    /// Swift offers Apple's requirement to implement in its `async` form too.
    final class AsyncTodayViewController: WidgetViewController, NCWidgetProviding {
        func widgetPerformUpdate() async -> NCUpdateResult {
            await Task.yield()
            return .newData
        }
    }

    /// A widget that implements neither form: no update.
    final class IdleTodayViewController: WidgetViewController, NCWidgetProviding {}

    /// What the widget's update answers, as the runtime calls it: through the protocol.
    func answer(of widget: any NCWidgetProviding) async -> NCUpdateResult {
        await withCheckedContinuation { continuation in
            widget.widgetPerformUpdate { result in continuation.resume(returning: result) }
        }
    }

    @Test func everySpellingApplesDocumentsIsTheOneCalled() async {
        #expect(await answer(of: ParenthesizedTodayViewController()) == .newData)
        #expect(await answer(of: PlainTodayViewController()) == .failed)
        #expect(await answer(of: SendableTodayViewController()) == .newData)
        #expect(await answer(of: AsyncTodayViewController()) == .newData)
        #expect(await answer(of: IdleTodayViewController()) == .noData)
    }
}
