import AppexBrowser
import AppexCore
import AppexItems
import Foundation

/// What a browser writes to the native messaging host: the decoder cuts it into the same
/// messages however it is cut into reads, each message is read or refused with a reason,
/// and an accepted request's results become items. The first byte of the input is the size
/// of the reads; the rest is the stream.
enum NativeMessagesFuzzing {
    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        guard let first = input.first else { return }
        let stream = Array(input.dropFirst())
        let whole = frames(of: stream, cut: max(stream.count, 1))
        let pieces = frames(of: stream, cut: Int(first % 16) + 1)
        try InvariantViolation.require(whole == pieces, "the messages depend on how the stream was cut into reads")
        for frame in whole {
            guard case .message(let bytes) = frame else { continue }
            try checkRequest(bytes)
        }
    }

    static func frames(of stream: [UInt8], cut: Int) -> [NativeMessageDecoder.Frame] {
        var decoder = NativeMessageDecoder(limit: 1 << 12)
        var frames: [NativeMessageDecoder.Frame] = []
        var offset = 0
        while offset < stream.count {
            decoder.append(stream[offset..<min(offset + cut, stream.count)])
            offset += cut
            while let frame = decoder.next() { frames.append(frame) }
        }
        return frames
    }

    static func checkRequest(_ bytes: [UInt8]) throws(InvariantViolation) {
        let request: BrowserRequest
        do throws(BrowserMessageError) {
            request = try BrowserRequest(json: bytes)
        } catch {
            try InvariantViolation.require(!error.description.isEmpty, "a refused message without its reason")
            return
        }
        if case .begin(_, let context, let results) = request.kind {
            try PreprocessingResultsFuzzing.checkItems(context: context, results: results)
        }
        try InvariantViolation.require(!BrowserReply.failure(id: request.id, error: "x").json.isEmpty, "no reply for \(request.id)")
    }
}

/// What a web page's script passes to `completionFunction`, as the browser sends it: taken
/// only as a dictionary of property-list values, or refused with where it is not one; what
/// is taken becomes the web page's attachment, and goes back to a page as JSON, as a
/// finalize argument does. The input is the results' JSON.
enum PreprocessingResultsFuzzing {
    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        let message = Array(#"{"id":1,"type":"begin","extension":"x","context":{"kind":"page","url":"https://example.com/"},"results":"#.utf8) + input + Array("}".utf8)
        let request: BrowserRequest
        do throws(BrowserMessageError) {
            request = try BrowserRequest(json: message)
        } catch {
            try InvariantViolation.require(!error.description.isEmpty, "a refusal without its reason")
            try InvariantViolation.require(error.id == 1 || error.id == nil, "a refusal with another message's id: \(error)")
            return
        }
        guard case .begin(_, let context, let results) = request.kind else { throw InvariantViolation("a begin read as \(request.kind)") }
        try checkItems(context: context, results: results)
        if let results {
            let reply = BrowserReply.completed(id: 1, .init(finalize: .dictionary(results)))
            let decoded = try? JSONSerialization.jsonObject(with: Data(reply.json)) as? [String: Any]
            try InvariantViolation.require(decoded?["id"] as? Int == 1, "the results can't go back to a page as JSON")
        }
    }

    /// The items of an accepted request: one item, whose page attachment has the web page
    /// first when there are results, then the URL.
    static func checkItems(context: PageContext, results: [String: PropertyListValue]?) throws(InvariantViolation) {
        let items = PageItems.items(for: context, results: results)
        try InvariantViolation.require(items.count == 1, "\(items.count) items for one context")
        let types = items[0].attachments?.first?.registeredTypeIdentifiers ?? []
        if context.kind == .page {
            let expected = results == nil ? ["public.url"] : ["com.apple.property-list", "public.url"]
            try InvariantViolation.require(types == expected, "the page's attachment has the types \(types)")
        }
    }
}
