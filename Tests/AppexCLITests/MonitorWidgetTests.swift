import AppexCore
import AppexHost
import AppexRegistry
import AppexSamples
import AppexTesting
import AppexToday
import Foundation
import Testing

/// The System Monitor sample's System Load widget, a widget with live data: while it is
/// shown it sends its view each second without being asked, and its links open the app.
@Suite final class MonitorWidgetTests {
    let samples: SampleHome
    static let widget = "com.example.monitor.widget"

    init() async throws {
        samples = try await SampleHome()
    }

    /// The clock the view shows: its first text of the form 12:34:56.
    static func clock(_ content: WidgetContent?) -> String? {
        content.flatMap { NotesWidgetTests.texts($0.view).first { $0.wholeMatch(of: /\d\d:\d\d:\d\d/) != nil } }
    }

    @Test func theWidgetSendsTheTimeAndLoadEachSecondWithoutBeingAsked() async throws {
        let widget = try await NSExtension.extension(withIdentifier: Self.widget, home: samples.test.home)
        let session = try await WidgetSession.begin(widget, presentation: WidgetPresentation(mode: .compact, width: 360))
        let answered = await session.update()
        #expect(answered.result == .newData, "every reading is news: \(answered.failure ?? "")")
        let first = try #require(answered.content)
        let texts = NotesWidgetTests.texts(first.view)
        #expect(texts.first == "System Load" && texts.contains("Load"), "\(texts)")
        #expect(texts.contains { $0.wholeMatch(of: /\d+\.\d\d \d+\.\d\d \d+\.\d\d/) != nil }, "the three load averages: \(texts)")
        #expect(first.view.links == ["monitor://load"])
        #expect(first.largestMode == .expanded && first.height(in: .compact) == 110)
        let shown = try #require(Self.clock(first), "\(texts)")

        // No more updates are asked for: the widget sends the next second's view itself.
        #expect(await eventually(seconds: 10) { Self.clock(session.content).map { $0 != shown } ?? false }, "the clock stayed at \(shown)")

        session.setDisplayMode(.expanded)
        #expect(await eventually(seconds: 10) { session.content?.view.links.count == 2 }, "no expanded content")
        let more = try #require(session.content)
        #expect(more.view.links == ["monitor://load", "monitor://memory"])
        #expect(NotesWidgetTests.texts(more.view).contains { $0.hasPrefix("Up ") && $0.hasSuffix(" tasks") }, "\(NotesWidgetTests.texts(more.view))")
        #expect(more.height(in: .expanded) == 154, "seven rows of 22 points")
        guard case .completed = await session.dismiss() else { Issue.record("a dismissed widget completes its request"); return }
    }

    @Test func aPersonWatchesTheClockTickAndOpensTheSystemMonitorApp() async throws {
        #expect(try await samples.appex.run(["today", "add", Self.widget]).status == 0)
        let terminal = try samples.terminal(["today"])
        let screen = try await terminal.waitForScreen(containing: "[1] Load")
        let shown = try #require(screen.firstMatch(of: /\d\d:\d\d:\d\d/).map { String($0.output) }, "\(screen)")
        try await terminal.waitForScreen(showing: "a clock past \(shown)") { $0.contains("[1] Load") && !$0.contains(shown) }

        terminal.send("1")
        let question = try await terminal.waitForScreen(containing: "Open it? y/n")
        #expect(question.contains("System Load asks to open monitor://load") && question.contains("in System Monitor"), "\(question)")
        terminal.send("y")
        try await terminal.waitForScreen(containing: "Opened monitor://load")
        terminal.send("q")
        #expect(try await terminal.waitForExit() == 0)

        let monitor = try #require(try Registry(home: samples.test.home).app("com.example.monitor")).executableURL
        // The app is launched in the background, so the answer to the link can come first.
        let record = samples.test.home.container(for: "com.example.monitor").appendingPathComponent("opened.txt")
        #expect(await eventually(seconds: 10) { FileManager.default.fileExists(atPath: record.path) })
        let opened = try await CommandRunner(executable: monitor, environment: samples.test.environment).run(["opened"])
        #expect(opened.standardOutput == "monitor://load\t\(Self.widget)\n", "the app records the URL it was opened with, and who asked")
    }
}
