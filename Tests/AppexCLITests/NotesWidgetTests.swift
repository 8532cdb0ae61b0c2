import AppexHost
import AppexSamples
import AppexTesting
import AppexToday
import Foundation
import Testing

/// The Notes sample's Latest Note widget, run by appexd from the installed samples: what
/// "Add to Notes" posts reaches the widget through the Notes app group.
@Suite final class NotesWidgetTests {
    let samples: SampleHome
    static let widget = "com.example.notes.widget"

    init() async throws {
        samples = try await SampleHome()
    }

    func share(_ text: String) async throws {
        let result = try await samples.appex.run(["share", "--text", text, "--to", "com.example.notes.share"])
        #expect(result.status == 0, "\(result.standardError)")
    }

    /// The texts of the view, in reading order.
    static func texts(_ view: WidgetView) -> [String] {
        switch view {
        case .text(let text, _, _): [text]
        case .stack(_, _, let children): children.flatMap(texts)
        case .link(_, let content): texts(content)
        case .spacer, .image, .progress, .divider: []
        }
    }

    @Test func theWidgetShowsTheNoteSharedLastAndLinksToIt() async throws {
        try await share("Buy oat milk")
        let widget = try await NSExtension.extension(withIdentifier: Self.widget, home: samples.test.home)
        let session = try await WidgetSession.begin(widget, presentation: WidgetPresentation(mode: .compact, width: 360))
        let reported = await session.update()
        #expect(reported.result == .newData, "the first update is news to the Today view: \(reported.failure ?? "")")
        let unchanged = await session.update()
        #expect(unchanged.result == .noData, "nothing was shared since the last update")
        let first = try #require(unchanged.content)
        #expect(Self.texts(first.view) == ["Latest Note", "1 shared", "Inbox", "Buy oat milk"])
        #expect(first.view.links.count == 1 && first.view.links[0].hasPrefix("notes://note/Inbox-"))
        #expect(first.largestMode == .expanded)

        try await share("Call the bakery\nabout Friday")
        let update = await session.update()
        #expect(update.result == .newData)
        #expect(update.content.map { Self.texts($0.view) } == ["Latest Note", "2 shared", "Inbox", "Call the bakery"], "compact shows the latest only")

        session.setDisplayMode(.expanded)
        var expanded: WidgetContent?
        for _ in 0..<500 where expanded == nil {
            if let content = session.content, Self.texts(content.view).count == 6 { expanded = content }
            try await Task.sleep(for: .milliseconds(10))
        }
        let shown = try #require(expanded, "no expanded content")
        #expect(Self.texts(shown.view) == ["Latest Note", "2 shared", "Inbox", "Call the bakery", "Inbox", "Buy oat milk"])
        #expect(shown.height(in: .expanded) == 110, "two notes fit in expanded's smallest height")
        let outcome = await session.dismiss()
        guard case .completed = outcome else { Issue.record("a dismissed widget completes its request: \(outcome)"); return }
    }
}
