import AppexBrowser
import AppexCore
import AppexItems
import AppexShare
import Foundation
import Testing

/// What the browser sends the host, read with errors that say what is wrong and where.
@Suite struct BrowserRequestTests {
    func read(_ json: String) throws(BrowserMessageError) -> BrowserRequest {
        try BrowserRequest(json: Array(json.utf8))
    }

    func refusal(_ json: String) -> BrowserMessageError? {
        do throws(BrowserMessageError) {
            _ = try read(json)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyKindOfMessageIsRead() throws {
        #expect(try read(#"{"id": 1, "type": "hello"}"#) == BrowserRequest(id: 1, kind: .hello))
        let page = PageContext(kind: .page, pageURL: URL(string: "https://example.com/a")!, title: "A")
        #expect(try read(#"{"id": 2, "type": "list", "context": {"kind": "page", "url": "https://example.com/a", "title": "A"}}"#)
            == BrowserRequest(id: 2, kind: .list(page)))
        #expect(try read(#"{"id": 3, "type": "script", "extension": "com.example.x"}"#) == BrowserRequest(id: 3, kind: .script(extension: "com.example.x")))
        let begun = try read(#"{"id": 4, "type": "begin", "extension": "x", "context": {"kind": "page", "url": "https://example.com/a", "title": "A"}, "results": {"n": 1, "b": true, "s": "t", "a": [1.5], "d": {}}}"#)
        #expect(begun == BrowserRequest(id: 4, kind: .begin(extension: "x", context: page, results: [
            "n": .integer(1), "b": .boolean(true), "s": .string("t"), "a": .array([.real(1.5)]), "d": .dictionary([:]),
        ])))
        #expect(try read(#"{"id": 5, "type": "compose", "request": 4, "message": {"name": "text", "text": "hi"}}"#)
            == BrowserRequest(id: 5, kind: .compose(request: 4, message: .text("hi"))))
        #expect(try read(#"{"id": 6, "type": "compose", "request": 4, "message": {"name": "pick", "index": 2}}"#)
            == BrowserRequest(id: 6, kind: .compose(request: 4, message: .pick(2))))
        #expect(try read(#"{"id": 7, "type": "cancel", "request": 4}"#) == BrowserRequest(id: 7, kind: .cancel(request: 4)))
        let link = try read(#"{"id": 8, "type": "list", "context": {"kind": "link", "url": "https://example.com/", "link": "https://swift.org/"}}"#)
        #expect(link == BrowserRequest(id: 8, kind: .list(PageContext(kind: .link, pageURL: URL(string: "https://example.com/")!, linkURL: URL(string: "https://swift.org/")!))))
    }

    @Test func garbageIsRefusedWithTheReason() {
        let cases: [(String, Int?, String)] = [
            ("not json", nil, "the message is not JSON"),
            ("[1, 2]", nil, "the message is a JSON array; it must be an object"),
            (#"{"type": "hello"}"#, nil, "the message has no \"id\""),
            (#"{"id": true, "type": "hello"}"#, nil, "the message has no \"id\""),
            (#"{"id": 1.5, "type": "hello"}"#, nil, "the message has no \"id\""),
            (#"{"id": 9}"#, 9, "the message has no \"type\""),
            (#"{"id": 9, "type": 3}"#, 9, "\"type\" is a number; it must be a string"),
            (#"{"id": 9, "type": "format-disk"}"#, 9, "\"format-disk\" is not a message type"),
            (#"{"id": 9, "type": "list"}"#, 9, "the message has no \"context\""),
            (#"{"id": 9, "type": "list", "context": {"kind": "video", "url": "https://a/"}}"#, 9, "context.kind \"video\" is not one of page, link, selection"),
            (#"{"id": 9, "type": "list", "context": {"kind": "page", "url": "not a url"}}"#, 9, "context.url \"not a url\" is not an absolute URL"),
            (#"{"id": 9, "type": "list", "context": {"kind": "selection", "url": "https://a/", "selection": ""}}"#, 9, "context.selection is empty"),
            (#"{"id": 9, "type": "list", "context": {"kind": "link", "url": "https://a/"}}"#, 9, "the message has no \"context.link\""),
            (#"{"id": 9, "type": "begin", "extension": "x", "context": {"kind": "page", "url": "https://a/"}, "results": "text"}"#, 9,
             "the page's script passed a string to completionFunction; it takes a dictionary"),
            (#"{"id": 9, "type": "begin", "extension": "x", "context": {"kind": "page", "url": "https://a/"}, "results": {"a": [1, null]}}"#, 9,
             "holds null at results.a[1]; property lists have no null"),
            (#"{"id": 9, "type": "compose", "request": 1, "message": {"name": "sheet"}}"#, 9, "\"sheet\" is a message only an extension sends"),
            (#"{"id": 9, "type": "compose", "request": 1, "message": {"name": "tap"}}"#, 9, "tap has no \"index\""),
            (#"{"id": 9, "type": "cancel", "request": "one"}"#, 9, "\"request\" must be a whole number"),
            (#"{"id": 9, "type": "list", "context": {"kind": "image", "url": "https://a/", "image": {"url": "https://a/x.exe", "type": "application/x-msdownload"}}}"#, 9,
             "context.image.type \"application/x-msdownload\" is not an image's MIME type"),
            (#"{"id": 9, "type": "list", "context": {"kind": "image", "url": "https://a/", "image": {"url": "https://a/x.png", "type": "image/png", "data": "*not base64*"}}}"#, 9,
             "context.image.data is not base64"),
            (#"{"id": 9, "type": "list", "context": {"kind": "image", "url": "https://a/"}}"#, 9, "the message has no \"context.image\""),
        ]
        for (json, id, message) in cases {
            let error = refusal(json)
            #expect(error?.id == id, "\(json)")
            #expect(error?.description.contains(message) == true, "\(json): \(error?.description ?? "accepted")")
        }
    }

    @Test func anImageComesWithItsBytesAndTooLargeOneIsRefused() throws {
        let bytes = Data([0x89, 0x50, 0x4e, 0x47])
        let read = try read(#"{"id": 1, "type": "begin", "extension": "x", "context": {"kind": "image", "url": "https://a/", "image": {"url": "https://a/p.png", "type": "IMAGE/PNG", "data": "\#(bytes.base64EncodedString())"}}}"#)
        guard case .begin(_, let context, nil) = read.kind else {
            Issue.record("not a begin: \(read)")
            return
        }
        #expect(context.image == PageContext.Image(url: URL(string: "https://a/p.png")!, mimeType: "image/png", data: bytes))
        let items = PageItems.items(for: context, results: nil)
        #expect(items[0].attachments?.first?.registeredTypeIdentifiers == ["public.png"] && items[0].attachments?.first?.suggestedName == "p")
        let huge = Data(count: PageContext.maximumImageLength + 1).base64EncodedString()
        let error = refusal(#"{"id": 2, "type": "begin", "extension": "x", "context": {"kind": "image", "url": "https://a/", "image": {"url": "https://a/p.png", "type": "image/png", "data": "\#(huge)"}}}"#)
        #expect(error?.description.contains("at most 5242880 are taken") == true, "\(error?.description ?? "accepted")")
    }

    @Test func aLongTitleIsCut() throws {
        let title = String(repeating: "t", count: 5000)
        guard case .list(let context) = try read(#"{"id": 1, "type": "list", "context": {"kind": "page", "url": "https://a/", "title": "\#(title)"}}"#).kind else {
            Issue.record("not a list")
            return
        }
        #expect(context.title?.count == PageContext.maximumTitleLength)
    }

    /// A reply past the browser's limit becomes an error that says so, never a message the
    /// browser would refuse.
    @Test func anOversizedReplyBecomesAnError() throws {
        let reply = BrowserReply.completed(id: 3, .init(text: String(repeating: "x", count: 2 << 20)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.json)) as? [String: Any])
        #expect(object["id"] as? Int == 3)
        #expect((object["error"] as? String)?.contains("a browser takes at most 1048576") == true)
        let infinite = BrowserReply.completed(id: 4, .init(finalize: .real(.infinity)))
        #expect(String(decoding: infinite.json, as: UTF8.self).contains("JSON can't carry"))
    }
}
