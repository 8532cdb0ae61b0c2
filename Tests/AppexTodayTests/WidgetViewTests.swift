import AppexToday
import Foundation
import Testing

/// The view description a widget sends: its JSON, its limits, and the messages that carry it.
@Suite struct WidgetViewTests {
    static let sample: WidgetView = .vstack([
        .hstack([.image(.note, label: "Note"), .text("Latest note", style: .headline), .spacer, .text("3", style: .monospacedDigits, color: .accent)]),
        .link("notes://note/Ideas-1", .text("Buy milk")),
        .divider,
        .progress(0.4, label: "Inbox"),
        .progress(1, label: nil),
    ])

    static func json(_ view: WidgetView) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(view), as: UTF8.self)
    }

    static func decode(_ json: String) throws -> WidgetView {
        try JSONDecoder().decode(WidgetView.self, from: Data(json.utf8))
    }

    @Test func aViewCrossesAsTheDocumentedJSONAndComesBackTheSame() throws {
        #expect(try Self.json(.text("Hi")) == #"{"text":"Hi","type":"text"}"#, "defaults are left out")
        #expect(try Self.json(.link("notes://x", .divider)) == #"{"content":{"type":"divider"},"type":"link","url":"notes:\/\/x"}"#)
        #expect(try Self.decode(try Self.json(Self.sample)) == Self.sample)
        #expect(try Self.decode(#"{"type":"stack","axis":"horizontal","children":[{"type":"spacer"}]}"#) == .stack(.horizontal, spacing: 0, [.spacer]))
        #expect(Self.sample.problem == nil)
        #expect(Self.sample.links == ["notes://note/Ideas-1"])
    }

    @Test func unknownTypesStylesAndSymbolsAreRefused() {
        #expect(throws: DecodingError.self) { try Self.decode(#"{"type":"video","url":"x"}"#) }
        #expect(throws: DecodingError.self) { try Self.decode(#"{"type":"text","text":"x","style":"blink"}"#) }
        #expect(throws: DecodingError.self) { try Self.decode(#"{"type":"image","symbol":"rocket","label":"x"}"#) }
        #expect(throws: DecodingError.self) { try Self.decode(#"{"type":"text"}"#) }
    }

    @Test func aDeeplyNestedDescriptionIsRefusedWhileItIsRead() throws {
        let deep = String(repeating: #"{"type":"link","url":"a:b","content":"#, count: 5000) + #"{"type":"spacer"}"# + String(repeating: "}", count: 5000)
        #expect(throws: DecodingError.self) { try Self.decode(deep) }
        var nested = WidgetView.spacer
        for _ in 1...12 { nested = .vstack([nested]) }
        #expect(nested.problem == "view.children[0].children[0].children[0].children[0].children[0].children[0].children[0].children[0].children[0].children[0].children[0].children[0] nests more than 12 views deep")
    }

    @Test func eachLimitIsNamedWhereItIsBroken() {
        #expect(WidgetView.vstack(Array(repeating: .spacer, count: 256)).problem == "the description holds more than 256 views")
        #expect(WidgetView.vstack(Array(repeating: .spacer, count: 255)).problem == nil)
        #expect(WidgetView.vstack([.divider, .text(String(repeating: "x", count: 2001))]).problem
            == "view.children[1]'s text is 2001 characters long, over 2000")
        #expect(WidgetView.link("no scheme", .spacer).problem == "view's URL \"no scheme\" has no scheme, so nothing could open it")
        #expect(WidgetView.progress(.nan, label: nil).problem == "view's value is nan, not a number from 0 to 1")
        #expect(WidgetView.stack(.vertical, spacing: 9, []).problem == "view's spacing is 9, outside 0…8")
    }

    @Test func theExpandedHeightFollowsThePreferredHeightWithinApplesBounds() {
        #expect(WidgetContent(view: .spacer, preferredHeight: 50).height(in: .expanded) == 110)
        #expect(WidgetContent(view: .spacer, preferredHeight: 300).height(in: .expanded) == 300)
        #expect(WidgetContent(view: .spacer, preferredHeight: 800).height(in: .expanded) == 616)
        #expect(WidgetContent(view: .spacer, preferredHeight: 800).height(in: .compact) == 110)
        #expect(WidgetPresentation(mode: .compact, width: 360).maximumSize(for: .expanded) == CGSize(width: 360, height: 616))
    }

    @Test func messagesRoundTripAndBrokenOnesSayWhatIsWrong() throws {
        let content = WidgetContent(view: Self.sample, preferredHeight: 220, largestMode: .expanded, allowsEditing: true)
        for message in [WidgetMessage.content(content), .present(WidgetPresentation(mode: .expanded, width: 320)), .update, .ready, .dismiss,
                        .displayMode(.compact), .followLink("notes://x"), .editing(true), .updated(.noData, answering: 7),
                        .linkOpened("notes://x", opened: false, reason: "declined")] {
            #expect(try WidgetMessage(name: message.name, body: message.body) == message)
        }
        #expect(String(decoding: WidgetMessage.displayMode(.expanded).body, as: UTF8.self) == #"{"mode":"expanded"}"#)

        func problem(_ name: String, _ body: String) -> String? {
            do throws(WidgetMessageError) {
                _ = try WidgetMessage(name: name, body: Array(body.utf8))
                return nil
            } catch {
                return error.description
            }
        }
        #expect(problem("wave", "{}") == "\"wave\" is not a Today widget message")
        #expect(problem("updated", #"{"result":"newData"}"#) == "updated has no \"answering\"")
        #expect(problem("updated", #"{"result":"maybe","answering":1}"#) == "\"maybe\" is not an update result")
        #expect(problem("displayMode", #"{"mode":"huge"}"#) == "\"huge\" is not a display mode")
        #expect(problem("content", #"{"view":{"type":"link","url":"x","content":{"type":"spacer"}},"preferredHeight":110,"largestMode":"compact","allowsEditing":false,"margins":{"top":0,"left":0,"bottom":0,"right":0}}"#)
            == "the widget's view can't be drawn: view's URL \"x\" has no scheme, so nothing could open it")
        #expect(problem("content", #"{"view":{"type":"spacer"},"preferredHeight":110,"largestMode":"compact","allowsEditing":false,"margins":{"top":0,"left":-5,"bottom":0,"right":0}}"#)
            == "the widget's view can't be drawn: its left margin is -5.0, outside 0…200 points")
        #expect(problem("content", "[1]")?.hasPrefix("content's body is not the JSON a widget's message has: wrong type") == true)
        #expect(problem("content", String(repeating: " ", count: WidgetMessage.bodyLimit + 1)) == "content is 262145 bytes, over the 262144 a widget's message may be")
    }
}
