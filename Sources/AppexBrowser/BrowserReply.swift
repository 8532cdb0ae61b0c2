public import AppexCore
public import AppexShare
import Foundation

/// A message from the native host to the Appex browser extension (docs/browser.md,
/// "Messages"): the answer to one request, or an event of a running extension request.
/// Each carries the `id` of the browser's message it answers.
public enum BrowserReply: Sendable, Hashable {
    /// An extension the browser may offer.
    public struct Listing: Codable, Sendable, Hashable {
        public var identifier: String
        public var name: String
        /// `share` or `action`.
        public var point: String
        /// The containing app's bundle identifier.
        public var app: String
        /// Whether the request gets the web page: the browser runs the extension's
        /// preprocessing file and sends its results in `begin`.
        public var preprocessing: Bool

        public init(identifier: String, name: String, point: String, app: String, preprocessing: Bool) {
            self.identifier = identifier
            self.name = name
            self.point = point
            self.app = app
            self.preprocessing = preprocessing
        }
    }

    /// What an extension's completion asks the browser to do to the page.
    public struct PageUpdate: Codable, Sendable, Hashable {
        /// `NSExtensionJavaScriptFinalizeArgumentKey`'s value, for the script's `finalize`.
        public var finalize: PropertyListValue?
        /// Text that replaces the selection.
        public var text: String?

        public init(finalize: PropertyListValue? = nil, text: String? = nil) {
            self.finalize = finalize
            self.text = text
        }
    }

    case hello(id: Int, version: String)
    case extensions(id: Int, [Listing])
    case script(id: Int, file: String, source: String)
    /// The request's extension is being launched.
    case launching(id: Int)
    /// A Share extension's compose sheet, each time it changes.
    case sheet(id: Int, ComposeSheet)
    case completed(id: Int, PageUpdate)
    case cancelled(id: Int, error: String)
    case interrupted(id: Int, error: String)
    /// A compose message was passed on.
    case sent(id: Int)
    /// The message with this `id` (nil if it had none) could not be done.
    case failure(id: Int?, error: String)

    /// The most bytes a host may send the browser in one message: Chromium and Firefox
    /// both refuse more than 1 MB.
    public static let maximumLength = 1 << 20

    /// The reply's JSON. A reply that would be longer than ``maximumLength``, or that holds
    /// what JSON can't say, becomes a ``failure`` that says so.
    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(Body(self)) else {
            return BrowserReply.failure(id: id, error: "the answer holds a value JSON can't carry (such as a real number that is not finite)").json
        }
        guard data.count <= Self.maximumLength else {
            return BrowserReply.failure(id: id, error: "the answer is \(data.count) bytes; a browser takes at most \(Self.maximumLength) from its native host").json
        }
        return Array(data)
    }

    /// The `id` of the message this answers.
    public var id: Int? {
        switch self {
        case .hello(let id, _), .extensions(let id, _), .script(let id, _, _), .launching(let id), .sheet(let id, _),
             .completed(let id, _), .cancelled(let id, _), .interrupted(let id, _), .sent(let id):
            id
        case .failure(let id, _): id
        }
    }

    /// The JSON object: `id`, then `event` for a request's events, and the fields of each.
    private struct Body: Encodable {
        var id: Int?
        var event: String?
        var host: String?
        var version: String?
        var `protocol`: Int?
        var extensions: [Listing]?
        var file: String?
        var script: String?
        var sheet: ComposeSheet?
        var finalize: PropertyListValue?
        var text: String?
        var error: String?

        init(_ reply: BrowserReply) {
            id = reply.id
            switch reply {
            case .hello(_, let version):
                host = "appex-browser"
                self.version = version
                self.protocol = BrowserRequest.protocolVersion
            case .extensions(_, let listings): extensions = listings
            case .script(_, let file, let source):
                self.file = file
                script = source
            case .launching: event = "launching"
            case .sheet(_, let sheet):
                event = "sheet"
                self.sheet = sheet
            case .completed(_, let update):
                event = "completed"
                finalize = update.finalize
                text = update.text
            case .cancelled(_, let error):
                event = "cancelled"
                self.error = error
            case .interrupted(_, let error):
                event = "interrupted"
                self.error = error
            case .sent: event = "sent"
            case .failure(_, let error): self.error = error
            }
        }
    }
}
