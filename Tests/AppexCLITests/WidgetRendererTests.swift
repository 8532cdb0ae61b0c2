@testable import appex
import AppexToday
import Testing

/// How `appex today` draws a widget's view description in a terminal, in plain text.
struct WidgetRendererTests {
    func draw(_ view: WidgetView, width: Int = 30, mode: NCWidgetDisplayMode = .compact, preferredHeight: Double = 110,
              margins: WidgetMargins = WidgetMargins(top: 0, left: 0, bottom: 0, right: 0)) -> (lines: [String], links: [String]) {
        let content = WidgetContent(view: view, preferredHeight: preferredHeight, largestMode: .expanded, margins: margins)
        var links: [String] = []
        let lines = WidgetRenderer(width: width, styled: false).lines(of: content, rows: WidgetRenderer.rows(of: content, in: mode), links: &links)
        return (lines, links)
    }

    @Test func textWrapsAtSpacesAndLongWordsAreBroken() {
        #expect(draw(.text("The quick brown fox jumps over the lazy dog"), width: 15).lines == ["The quick brown", "fox jumps over", "the lazy dog"])
        #expect(draw(.text("abcdefghijklmnopqrst"), width: 8).lines == ["abcdefgh", "ijklmnop", "qrst"])
        #expect(draw(.text("abcdefghij"), width: 4).lines == ["abcdefgh", "ij"], "a widget is 8 columns at least")
        #expect(draw(.text("one\ntwo")).lines == ["one", "two"])
    }

    @Test func aRowSharesWhatIsLeftAmongItsSpacers() {
        let row = WidgetView.hstack([.image(.note, label: "Note"), .text("Latest"), .spacer, .text("2 shared")])
        #expect(draw(row, width: 24).lines == ["✎ Latest        2 shared"])
        let centred = WidgetView.hstack(spacing: 0, [.spacer, .text("mid"), .spacer])
        #expect(draw(centred, width: 9).lines == ["   mid"])
    }

    @Test func linksAreNumberedInReadingOrderAcrossRowsAndStacks() {
        let view = WidgetView.vstack([
            .link("a://1", .text("First")),
            .hstack([.link("a://2", .text("Second")), .link("a://3", .text("Third"))]),
        ])
        let drawn = draw(view)
        #expect(drawn.lines == ["[1] First", "[2] Second [3] Third"])
        #expect(drawn.links == ["a://1", "a://2", "a://3"])
        #expect(drawn.links == view.links, "the same order as the view's own")
    }

    @Test func aLinkThatDoesntFitKeepsItsNumber() {
        let view = WidgetView.vstack([
            .hstack([.text(String(repeating: "x", count: 12)), .link("a://hidden", .text("Hidden"))]),
            .link("a://shown", .text("Shown")),
        ])
        let drawn = draw(view, width: 12)
        #expect(drawn.links == ["a://hidden", "a://shown"])
        #expect(drawn.lines == ["xxxxxxxxxxxx", "[2] Shown"])
    }

    @Test func compactShowsFiveRowsAndClipsTheRestSayingHowMany() {
        let view = WidgetView.vstack((1...8).map { .text("Row \($0)") })
        #expect(draw(view).lines == ["Row 1", "Row 2", "Row 3", "Row 4", "… 4 more rows (clipped)"])
        #expect(draw(view, mode: .expanded, preferredHeight: 220).lines == (1...8).map { "Row \($0)" }, "expanded: 220 points are 10 rows")
        #expect(WidgetRenderer.rows(of: WidgetContent(view: view, preferredHeight: 5000, largestMode: .expanded), in: .expanded) == 28,
                "expanded is 616 points at most")
    }

    @Test func progressDividersMarginsAndSymbolsHaveTheirShapes() {
        #expect(draw(.progress(0.5, label: "Half"), width: 20).lines == ["Half ▕█████░░░░▏ 50%"])
        #expect(draw(.progress(.nan, label: nil), width: 12).lines == ["▕░░░░░░░▏ 0%"], "what isn't a number is empty")
        #expect(draw(.divider, width: 10).lines == ["──────────"])
        #expect(draw(.text("Hi"), margins: .proposed).lines == ["  Hi"], "16 points are 2 columns")
        #expect(draw(.hstack([.image(.clock, label: "Time"), .image(.warning, label: "Careful")])).lines == ["◷ ⚠"])
    }
}
