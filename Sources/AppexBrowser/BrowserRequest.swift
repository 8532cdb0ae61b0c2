public import AppexCore
public import AppexShare
import Foundation

/// A message from the Appex browser extension to its native host (docs/browser.md,
/// "Messages"). Each has an `id`, which the host's replies to it carry.
///
/// ```swift
/// let request = try BrowserRequest(json: Array(#"{"id": 1, "type": "hello"}"#.utf8))
/// ```
public struct BrowserRequest: Sendable, Hashable {
    /// What the browser asks.
    public enum Kind: Sendable, Hashable {
        /// Which host this is, and its protocol's version.
        case hello
        /// The Share and Action extensions that accept the context, in the user's order.
        case list(PageContext)
        /// The JavaScript preprocessing file of an extension, to run in the page.
        case script(extension: String)
        /// A request to an extension with the context's items, and for a web page the
        /// dictionary the page's script passed to its `completionFunction`.
        case begin(extension: String, context: PageContext, results: [String: PropertyListValue]?)
        /// What the user did on a Share extension's compose sheet, for request `request`.
        case compose(request: Int, message: ComposeMessage)
        /// The user gave up on request `request`.
        case cancel(request: Int)
    }

    public var id: Int
    public var kind: Kind

    public init(id: Int, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// The newest protocol version the host speaks; the hello reply says it.
    public static let protocolVersion = 1

    /// Reads a message from its JSON bytes; throws ``BrowserMessageError`` saying what is
    /// wrong and where, with the message's `id` when it has a readable one.
    public init(json: [UInt8]) throws(BrowserMessageError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw BrowserMessageError("the message is not JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)")")
        }
        guard let fields = object as? [String: Any] else {
            throw BrowserMessageError("the message is a JSON \(Self.kindName(object)); it must be an object")
        }
        guard let id = Self.integer(fields["id"]) else {
            throw BrowserMessageError("the message has no \"id\"; give every message a whole-number id")
        }
        let message = Fields(id: id, fields: fields)
        switch try message.string("type") {
        case "hello":
            self.init(id: id, kind: .hello)
        case "list":
            self.init(id: id, kind: .list(try message.context()))
        case "script":
            self.init(id: id, kind: .script(extension: try message.string("extension")))
        case "begin":
            let results = try message.results()
            self.init(id: id, kind: .begin(extension: try message.string("extension"), context: try message.context(), results: results))
        case "compose":
            self.init(id: id, kind: .compose(request: try message.integer("request"), message: try message.composeMessage()))
        case "cancel":
            self.init(id: id, kind: .cancel(request: try message.integer("request")))
        case let other:
            throw BrowserMessageError(id: id, "\"\(other.prefix(40))\" is not a message type; the host takes hello, list, script, begin, compose and cancel")
        }
    }

    /// A message's fields, read with errors that name the field.
    private struct Fields {
        var id: Int
        var fields: [String: Any]

        func fail(_ reason: String) -> BrowserMessageError { BrowserMessageError(id: id, reason) }

        func string(_ name: String, in object: [String: Any]? = nil, path: String? = nil) throws(BrowserMessageError) -> String {
            guard let value = (object ?? fields)[name] else { throw fail("the message has no \"\(path ?? name)\"") }
            guard let text = value as? String else { throw fail("\"\(path ?? name)\" is a \(BrowserRequest.kindName(value)); it must be a string") }
            return text
        }

        func integer(_ name: String) throws(BrowserMessageError) -> Int {
            guard let value = fields[name] else { throw fail("the message has no \"\(name)\"") }
            guard let number = BrowserRequest.integer(value) else { throw fail("\"\(name)\" must be a whole number") }
            return number
        }

        func context() throws(BrowserMessageError) -> PageContext {
            guard let value = fields["context"] else { throw fail("the message has no \"context\"") }
            guard let context = value as? [String: Any] else { throw fail("\"context\" is a \(BrowserRequest.kindName(value)); it must be an object") }
            let kindName = try string("kind", in: context, path: "context.kind")
            guard let kind = PageContext.Kind(rawValue: kindName) else {
                throw fail("context.kind \"\(kindName.prefix(40))\" is not one of \(PageContext.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            var page = PageContext(kind: kind, pageURL: try url("url", in: context))
            if let title = context["title"] {
                guard let title = title as? String else { throw fail("context.title must be a string") }
                page.title = String(title.prefix(PageContext.maximumTitleLength))
            }
            switch kind {
            case .page: break
            case .link: page.linkURL = try url("link", in: context)
            case .selection:
                let selection = try string("selection", in: context, path: "context.selection")
                guard !selection.isEmpty else { throw fail("context.selection is empty; a selection context needs the selected text") }
                page.selection = selection
            case .image:
                page.image = try image(in: context)
            }
            return page
        }

        private func image(in context: [String: Any]) throws(BrowserMessageError) -> PageContext.Image {
            guard let value = context["image"] else { throw fail("the message has no \"context.image\"") }
            guard let fields = value as? [String: Any] else { throw fail("context.image must be an object") }
            let url = try url("url", in: fields, path: "context.image.url")
            let type = try string("type", in: fields, path: "context.image.type").lowercased()
            guard type.hasPrefix("image/"), type.count <= 100 else { throw fail("context.image.type \"\(type.prefix(40))\" is not an image's MIME type") }
            var image = PageContext.Image(url: url, mimeType: type)
            if let encoded = fields["data"] {
                guard let text = encoded as? String, let data = Data(base64Encoded: text) else { throw fail("context.image.data is not base64") }
                guard data.count <= PageContext.maximumImageLength else {
                    throw fail("the image is \(data.count) bytes; at most \(PageContext.maximumImageLength) are taken")
                }
                image.data = data
            }
            return image
        }

        private func url(_ name: String, in context: [String: Any], path: String? = nil) throws(BrowserMessageError) -> URL {
            let path = path ?? "context.\(name)"
            let text = try string(name, in: context, path: path)
            guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
                throw fail("\(path) \"\(text.prefix(80))\" is not an absolute URL")
            }
            return url
        }

        func results() throws(BrowserMessageError) -> [String: PropertyListValue]? {
            guard let value = fields["results"], !(value is NSNull) else { return nil }
            guard let entries = value as? [String: Any] else {
                throw fail("the page's script passed a \(BrowserRequest.kindName(value)) to completionFunction; it takes a dictionary (a JavaScript object)")
            }
            let list: PropertyListValue
            do throws(PropertyListError) {
                list = try PropertyListValue(foundationObject: entries, keyPath: "results")
            } catch {
                throw fail("the page's script passed to completionFunction what is not a property list: it \(error.reason)")
            }
            guard case .dictionary(let dictionary) = list else { throw fail("the results are not a dictionary") }
            return dictionary
        }

        func composeMessage() throws(BrowserMessageError) -> ComposeMessage {
            guard let value = fields["message"] else { throw fail("the message has no \"message\"") }
            guard let message = value as? [String: Any] else { throw fail("\"message\" must be an object") }
            let name = try string("name", in: message, path: "message.name")
            guard name != "sheet" else { throw fail("\"sheet\" is a message only an extension sends") }
            var body: [String: Any] = [:]
            if let text = message["text"] { body["text"] = text }
            if let index = message["index"] { body["index"] = index }
            let decoded: ComposeMessage
            do throws(ComposeMessageError) {
                let bytes = (try? JSONSerialization.data(withJSONObject: body)) ?? Data("{}".utf8)
                decoded = try ComposeMessage(name: name, body: Array(bytes))
            } catch {
                throw fail(error.description)
            }
            return decoded
        }
    }

    private static func integer(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 9.0e15 else { return nil }
        return number.intValue
    }

    /// The name of a JSON value's kind, for messages.
    static func kindName(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case is String: "string"
        case let number as NSNumber: String(cString: number.objCType) == "c" ? "boolean" : "number"
        case is [Any]: "array"
        case is [String: Any]: "object"
        default: "\(type(of: value))"
        }
    }
}
