import AppexKit
import Foundation

/// The point messages of a Today widget (docs/extension-points.md, "Today"): their names,
/// and their bodies as JSON.
///
/// The widget sends ``ready`` when it listens, since a host speaks only after it has heard
/// from the extension. The host sends ``present``, then ``update`` whenever it wants fresh
/// content. The widget answers ``update`` with ``updated``, after ``content`` if its view changed, and
/// sends ``content`` on its own whenever its view changes while it is shown.
public enum WidgetMessage: Sendable, Hashable {
    /// Host → widget: the widget is shown, in this mode, with these sizes.
    case present(WidgetPresentation)
    /// Host → widget: update your content (`widgetPerformUpdate`).
    case update
    /// Host → widget: the user changed the display mode.
    case displayMode(NCWidgetDisplayMode)
    /// Host → widget: the user followed this link of the widget's view.
    case followLink(String)
    /// Host → widget: the Today view entered (true) or left (false) edit mode.
    case editing(Bool)
    /// Host → widget: the Today view is closing; the widget completes its request.
    case dismiss
    /// Widget → host: the widget listens for the host's messages.
    case ready
    /// Widget → host: what to draw.
    case content(WidgetContent)
    /// Widget → host: what an update found, answering the `update` with this sequence number.
    case updated(NCUpdateResult, answering: UInt64)
    /// Widget → host: whether following a link opened it, and if not, why.
    case linkOpened(String, opened: Bool, reason: String)

    /// The largest body a host accepts: a view within ``WidgetView/Limits`` fits with room.
    public static let bodyLimit = 256 * 1024

    /// The message's name on the wire.
    public var name: String {
        switch self {
        case .present: "present"
        case .update: "update"
        case .displayMode: "displayMode"
        case .followLink: "followLink"
        case .editing: "editing"
        case .dismiss: "dismiss"
        case .ready: "ready"
        case .content: "content"
        case .updated: "updated"
        case .linkOpened: "linkOpened"
        }
    }

    private struct Body: Codable {
        var mode: String?
        var url: String?
        var editing: Bool?
        var result: String?
        var answering: UInt64?
        var opened: Bool?
        var reason: String?
    }

    /// The message's body.
    public var body: [UInt8] {
        switch self {
        case .present(let presentation): PointMessageJSON.encode(presentation)
        case .content(let content): PointMessageJSON.encode(content)
        case .displayMode(let mode): PointMessageJSON.encode(Body(mode: mode.description))
        case .followLink(let url): PointMessageJSON.encode(Body(url: url))
        case .editing(let editing): PointMessageJSON.encode(Body(editing: editing))
        case .updated(let result, let answering): PointMessageJSON.encode(Body(result: result.description, answering: answering))
        case .linkOpened(let url, let opened, let reason): PointMessageJSON.encode(Body(url: url, opened: opened, reason: reason))
        case .update, .dismiss, .ready: Array("{}".utf8)
        }
    }

    /// Reads a message from its name and body; throws ``WidgetMessageError`` saying what is wrong.
    public init(name: String, body: [UInt8]) throws(WidgetMessageError) {
        guard body.count <= Self.bodyLimit else {
            throw WidgetMessageError("\(name) is \(body.count) bytes, over the \(Self.bodyLimit) a widget's message may be")
        }
        do {
            let decoder = JSONDecoder()
            func fields() throws -> Body { try decoder.decode(Body.self, from: Data(body)) }
            func required<T>(_ value: T?, _ key: String) throws(WidgetMessageError) -> T {
                guard let value else { throw WidgetMessageError("\(name) has no \"\(key)\"") }
                return value
            }
            switch name {
            case "present":
                self = .present(try decoder.decode(WidgetPresentation.self, from: Data(body)))
            case "update": self = .update
            case "dismiss": self = .dismiss
            case "ready": self = .ready
            case "displayMode":
                let written = try required(try fields().mode, "mode")
                guard let mode = NCWidgetDisplayMode(name: written) else { throw WidgetMessageError("\"\(written)\" is not a display mode") }
                self = .displayMode(mode)
            case "followLink": self = .followLink(try required(try fields().url, "url"))
            case "editing": self = .editing(try required(try fields().editing, "editing"))
            case "content":
                let content = try decoder.decode(WidgetContent.self, from: Data(body))
                if let problem = content.problem { throw WidgetMessageError("the widget's view can't be drawn: \(problem)") }
                self = .content(content)
            case "updated":
                let body = try fields()
                let written = try required(body.result, "result")
                guard let result = NCUpdateResult(name: written) else { throw WidgetMessageError("\"\(written)\" is not an update result") }
                self = .updated(result, answering: try required(body.answering, "answering"))
            case "linkOpened":
                let body = try fields()
                self = .linkOpened(try required(body.url, "url"), opened: try required(body.opened, "opened"), reason: body.reason ?? "")
            default: throw WidgetMessageError("\"\(name)\" is not a Today widget message")
            }
        } catch let error as WidgetMessageError {
            throw error
        } catch {
            throw WidgetMessageError("\(name)'s body is not the JSON a widget's message has: \(PointMessageJSON.describe(error))")
        }
    }
}

/// Why a widget's message can't be read.
public struct WidgetMessageError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) { self.description = description }
}
