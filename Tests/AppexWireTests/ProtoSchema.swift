import Foundation

/// The messages and fields of a proto3 file such as docs/wire.proto, read as far as the
/// conformance tests need: each message's fields and their types. Enums are skipped; nested
/// messages are not expected, and are refused.
struct ProtoSchema {
    struct FieldName: Hashable {
        var message: String
        var field: String
    }

    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    /// Each message's fields, by name, with their type as written (`string`, `Payload`, `Hello.Role`).
    private(set) var messages: [String: [String: String]] = [:]

    var allFields: Set<FieldName> {
        Set(messages.flatMap { message, fields in fields.keys.map { FieldName(message: message, field: $0) } })
    }

    init(_ source: String) throws {
        let tokens = Self.tokens(of: source)
        var index = 0
        var message: String?
        var depth = 0 // braces open inside the current message: its oneofs and enums
        func next() throws -> String {
            guard index < tokens.count else { throw Unreadable(description: "wire.proto ends inside \(message ?? "the file")") }
            defer { index += 1 }
            return tokens[index]
        }
        while index < tokens.count {
            let token = try next()
            switch (token, message) {
            case ("message", nil):
                message = try next()
                messages[message!] = [:]
                guard try next() == "{" else { throw Unreadable(description: "no { after message \(message!)") }
            case ("message", let outer?):
                throw Unreadable(description: "a message nested in \(outer)")
            case ("enum", _?):
                _ = try next()
                guard try next() == "{" else { throw Unreadable(description: "no { after an enum in \(message!)") }
                while try next() != "}" {}
            case ("oneof", _?):
                _ = try next()
                guard try next() == "{" else { throw Unreadable(description: "no { after a oneof in \(message!)") }
                depth += 1
            case ("}", _?):
                if depth > 0 { depth -= 1 } else { message = nil }
            case (_, let current?):
                let type = token == "optional" || token == "repeated" ? try next() : token
                let name = try next()
                guard try next() == "=" else { throw Unreadable(description: "no = after field \(name) of \(current)") }
                _ = try next()
                guard try next() == ";" else { throw Unreadable(description: "no ; after field \(name) of \(current)") }
                messages[current]![name] = type
            default:
                continue // syntax, package, and what they name
            }
        }
    }

    /// The fields that protoc's text format `text` of a `message` sets, nested ones included.
    func fieldsSet(in text: String, of message: String) throws -> Set<FieldName> {
        var set: Set<FieldName> = []
        var stack = [message]
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line == "}" {
                stack.removeLast()
                continue
            }
            let opensMessage = line.hasSuffix(" {")
            guard let name = line.split(separator: opensMessage ? " " : ":").first.map(String.init),
                  let type = messages[stack.last!]?[name] else {
                throw Unreadable(description: "protoc printed a line no field of \(stack.last!) explains: \(line)")
            }
            set.insert(FieldName(message: stack.last!, field: name))
            if opensMessage { stack.append(type) }
        }
        return set
    }

    private static func tokens(of source: String) -> [String] {
        var tokens: [String] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            var word = ""
            for character in code {
                if character.isWhitespace || "{};=".contains(character) {
                    if !word.isEmpty { tokens.append(word) }
                    word = ""
                    if !character.isWhitespace { tokens.append(String(character)) }
                } else {
                    word.append(character)
                }
            }
            if !word.isEmpty { tokens.append(word) }
        }
        return tokens
    }
}
