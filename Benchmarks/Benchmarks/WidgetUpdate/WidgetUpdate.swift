import AppexBenchmarkSupport
import AppexHost
import AppexToday
import Benchmark
import Foundation

// A widget update, the point-message round trip a Today view makes most: the host's
// `WidgetSession.update()` sends `update`, the widget runs `widgetPerformUpdate`, sets a view
// of about System Load's size and answers `.newData`, so `content` and `updated` come back;
// the session decodes and checks the content. Beside it, in the same run, the baseline: a
// raw ping-pong of a small message over a Unix socketpair.

/// What each benchmark process set up.
nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var session: WidgetSession?

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .syscalls],
        warmupIterations: 100,
        maxDuration: .seconds(5),
        maxIterations: 20_000
    )

    Benchmark("Widget update: WidgetSession.update(), .newData with a 56-view content") { _ in
        let update = await session!.update()
        guard update.result == .newData, update.content != nil else {
            fatalError("the benchmark widget answered \(update.result): \(update.failure ?? "no content")")
        }
    } setup: {
        runtime = try RuntimeHome(widget: true)
        let widget = try await runtime!.benchWidget()
        session = try await WidgetSession.begin(widget, presentation: WidgetPresentation(mode: .expanded, width: 320))
        _ = await session!.update()  // the widget is up, and has answered once
    } teardown: {
        _ = await session?.dismiss()
        session = nil
        await runtime?.stop()
        runtime = nil
    }

    PingPong.registerBaseline("Widget update baseline: socketpair ping-pong, 64 bytes, two threads")
}
