import AppexKit
import Foundation

/// The point messages of Share's compose sheet (docs/extension-points.md, "Share"): their
/// names, and their bodies as JSON.
///
/// The extension sends ``sheet`` with a ``ComposeSheet`` when it starts and after each
/// change. The host sends the user's doings, each of which the extension answers with a
/// sheet whose `answering` is that message's sequence number (except ``post`` and
/// ``cancel``, which the request's end answers).
public enum ComposeMessage: Sendable, Hashable {
    /// Extension → host: the sheet to draw.
    case sheet(ComposeSheet)
    /// Host → extension: the user changed the text to this.
    case text(String)
    /// Host → extension: the user tapped configuration item `index`.
    case tap(Int)
    /// Host → extension: the user picked option `index` of the list on top.
    case pick(Int)
    /// Host → extension: the user left the list on top.
    case back
    /// Host → extension: the user chose Post.
    case post
    /// Host → extension: the user chose Cancel.
    case cancel

    /// The message's name on the wire.
    public var name: String {
        switch self {
        case .sheet: "sheet"
        case .text: "text"
        case .tap: "tap"
        case .pick: "pick"
        case .back: "back"
        case .post: "post"
        case .cancel: "cancel"
        }
    }

    private struct Body: Codable {
        var text: String?
        var index: Int?
    }

    /// The message's body.
    public var body: [UInt8] {
        switch self {
        case .sheet(let sheet): PointMessageJSON.encode(sheet)
        case .text(let text): PointMessageJSON.encode(Body(text: text))
        case .tap(let index), .pick(let index): PointMessageJSON.encode(Body(index: index))
        case .back, .post, .cancel: Array("{}".utf8)
        }
    }

    /// Reads a message from its name and body; throws ``ComposeMessageError`` saying what is wrong.
    public init(name: String, body: [UInt8]) throws(ComposeMessageError) {
        do {
            switch name {
            case "sheet":
                let sheet = try JSONDecoder().decode(ComposeSheet.self, from: Data(body))
                if let problem = sheet.problem { throw ComposeMessageError("the compose sheet can't be drawn: \(problem)") }
                self = .sheet(sheet)
            case "text":
                guard let text = try JSONDecoder().decode(Body.self, from: Data(body)).text else { throw ComposeMessageError("text has no \"text\"") }
                self = .text(text)
            case "tap", "pick":
                guard let index = try JSONDecoder().decode(Body.self, from: Data(body)).index else { throw ComposeMessageError("\(name) has no \"index\"") }
                self = name == "tap" ? .tap(index) : .pick(index)
            case "back": self = .back
            case "post": self = .post
            case "cancel": self = .cancel
            default: throw ComposeMessageError("\"\(name)\" is not a compose sheet message")
            }
        } catch let error as ComposeMessageError {
            throw error
        } catch {
            throw ComposeMessageError("\(name)'s body is not the JSON the compose sheet expects: \(PointMessageJSON.describe(error))")
        }
    }
}

/// Why a compose sheet message can't be read.
public struct ComposeMessageError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) { self.description = description }
}
