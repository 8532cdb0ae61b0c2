import AppexSystem
import Foundation
import Glibc

/// The messages processes of one coordination root send each other about file presenters
/// (``PresenterExchange``): each a small JSON file, made beside its name and renamed into
/// the recipient's inbox, so it is read whole or not at all.
///
/// Every process of a group can write the root, so what is read is checked: a file over
/// ``maximumSize``, a path that isn't plain names below the root, or more than
/// ``maximumItems`` items is dropped, and said on standard error once.
enum PresenterMail {
    /// A coordination asks the presenters of a process to make way for it.
    struct Ask: Codable, Equatable {
        var id: String
        /// The asking process's token, whose inbox gets the answer.
        var from: String
        var items: [Item]

        struct Item: Codable, Equatable {
            /// Below the root, as ``CoordinatedItem/components``.
            var path: [String]
            var writing: Bool
            /// The reading or writing options' raw value.
            var options: UInt
        }
    }

    /// The presenters have made way, or one could not: `error` says why.
    struct Answer: Codable, Equatable {
        var id: String
        var from: String
        var error: String?
    }

    /// The access ended: what it moved and changed, for the presenters to hear; their items are theirs again.
    struct End: Codable, Equatable {
        var id: String
        var from: String
        var moves: [Move]
        var changes: [Change]

        struct Move: Codable, Equatable {
            var from: [String]
            var to: [String]
        }

        struct Change: Codable, Equatable {
            var path: [String]
            var appeared: Bool
        }
    }

    /// News for the presenters of an item in other processes, which no one answers.
    protocol News: Codable {
        var id: String { get set }
        var from: String { get set }
        var path: [String] { get }
        static var kind: Kind { get }
    }

    /// An item's ubiquity attributes changed (``UbiquityNews``), by their names.
    struct Ubiquity: News, Equatable {
        var id: String
        var from: String
        var path: [String]
        var attributes: [String]
        static var kind: Kind { .ubiquity }
    }

    /// A version of an item was kept or let go (``VersionNews``): news for its presenters,
    /// which no one answers.
    struct Version: News, Equatable {
        var id: String
        var from: String
        var path: [String]
        var change: VersionNews.Change
        var version: VersionStore.Entry
        static var kind: Kind { .version }
    }

    /// The largest message read: 64 KiB.
    static let maximumSize = 64 << 10
    /// The most items one ask may name.
    static let maximumItems = 64
    /// The deepest path a message may name.
    static let maximumDepth = 128

    /// The kinds of file, by the extension of their name: the messages, and a process's
    /// list of the items it presents.
    enum Kind: String, CaseIterable {
        case ask, answer, end, items, version, ubiquity
    }

    /// Writes `message` into `inbox` as `id.kind`: beside it first, then renamed.
    static func send(_ message: some Encodable, id: String, kind: Kind, to inbox: ConfinedFolder) throws {
        let data = try JSONEncoder().encode(message)
        let name = "\(id).\(kind.rawValue)"
        let unfinished = ".\(name).unfinished"
        inbox.removeFile(unfinished)
        let file = try inbox.openFile(unfinished, flags: O_WRONLY | O_CREAT | O_EXCL)
        defer { file.close() }
        do {
            try file.write(data)
            try inbox.rename(unfinished, to: name)
        } catch {
            inbox.removeFile(unfinished)
            throw error
        }
    }

    /// Reads and removes the message `name` from `inbox`; nil, having said why, if it can't
    /// be read or isn't one.
    static func receive<Message: Decodable>(_ type: Message.Type, _ name: String, from inbox: ConfinedFolder) -> Message? {
        defer { inbox.removeFile(name) }
        do {
            let file = try inbox.openFile(name)
            defer { file.close() }
            let data = try file.readContents(limit: maximumSize)
            let message = try JSONDecoder().decode(type, from: data)
            guard isValid(message) else { throw CocoaError(.propertyListReadCorrupt) }
            return message
        } catch {
            RefusalLog.once("presenter-mail-\(inbox.path)", "a file presenter message in \(inbox.path), \(name), was dropped: it is not one this process can read (\(error)); every later one like it is dropped without a word")
            return nil
        }
    }

    /// Whether each path a message names is plain names below the root, within the limits.
    private static func isValid(_ message: Any) -> Bool {
        switch message {
        case let ask as Ask: return ask.items.count <= maximumItems && ask.items.allSatisfy { isPath($0.path) } && isToken(ask.from)
        case let answer as Answer: return isToken(answer.from) && (answer.error?.utf8.count ?? 0) <= 4096
        case let news as Version: return isToken(news.from) && isPath(news.path) && VersionStore.isValid(news.version)
        case let news as Ubiquity:
            return isToken(news.from) && isPath(news.path) && news.attributes.count <= maximumItems && news.attributes.allSatisfy { $0.utf8.count <= 255 }
        case let end as End:
            return isToken(end.from) && end.moves.count <= maximumItems && end.changes.count <= maximumItems
                && end.moves.allSatisfy { isPath($0.from) && isPath($0.to) } && end.changes.allSatisfy { isPath($0.path) }
        default: return false
        }
    }

    /// Whether `path` is a path below a root: plain names, none empty, `.` or `..`.
    static func isPath(_ path: [String]) -> Bool {
        path.count <= maximumDepth && path.allSatisfy { name in
            !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0") && name.utf8.count <= 255
        }
    }

    /// Whether `token` names a process as ``PresenterExchange`` names them: its pid, a dash
    /// and 16 hexadecimal digits.
    static func isToken(_ token: String) -> Bool {
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[0].utf8.count <= 10 && parts[0].allSatisfy(\.isNumber)
            && parts[1].utf8.count == 16 && parts[1].allSatisfy(\.isHexDigit)
    }
}
