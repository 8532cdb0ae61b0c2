public import AppexCore
import AppexTesting
public import Foundation

/// The activation rules of the shared corpus (`../shared/corpus/activation-rules.jsonl`), read
/// at setup time so the benchmarks measure what real projects write.
public enum CorpusRules {
    /// One distinct rule of the corpus and how often real projects wrote it.
    public struct Entry: Sendable {
        public var rule: PropertyListValue
        public var occurrences: Int
        public var repo: String
        public var path: String
    }

    /// The corpus file; `APPEX_CORPUS` names another folder.
    public static var file: URL {
        let folder = ProcessInfo.processInfo.environment["APPEX_CORPUS"].map { URL(fileURLWithPath: $0) } ?? Corpus.directory
        return folder.appendingPathComponent("activation-rules.jsonl")
    }

    /// The rules written for `point` that compile, in corpus order.
    public static func load(point: String) throws -> [Entry] {
        let text = try String(contentsOf: file, encoding: .utf8)
        var entries: [Entry] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            let row = try JSONDecoder().decode(Row.self, from: Data(line.utf8))
            guard row.extension_point == point, row.kind == "predicate" || row.kind == "dictionary" else { continue }
            let rule = row.rule.propertyListValue
            guard (try? ActivationRule.parse(rule)) != nil else { continue }
            entries.append(Entry(rule: rule, occurrences: max(row.occurrences ?? 1, 1), repo: row.repo, path: row.path))
        }
        return entries
    }

    /// The predicate rule written in `repo` at `path`: the benchmarks' "typical rule".
    public static func predicate(repo: String, path: String) throws -> String {
        let text = try String(contentsOf: file, encoding: .utf8)
        for line in text.split(separator: "\n") where !line.isEmpty {
            let row = try JSONDecoder().decode(Row.self, from: Data(line.utf8))
            if row.repo == repo, row.path == path, case .string(let format) = row.rule { return format }
        }
        throw NotFound(description: "no predicate rule from \(repo) \(path) in \(file.path)")
    }

    struct NotFound: Error, CustomStringConvertible {
        var description: String
    }

    private struct Row: Decodable {
        var repo: String
        var path: String
        var kind: String
        var rule: JSONValue
        var extension_point: String
        var occurrences: Int?
    }

    /// A JSON value with the plist's own types kept (a count written as a string stays a string).
    private enum JSONValue: Decodable {
        case string(String), boolean(Bool), integer(Int), real(Double), array([JSONValue]), dictionary([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) { self = .boolean(value) }
            else if let value = try? container.decode(Int.self) { self = .integer(value) }
            else if let value = try? container.decode(Double.self) { self = .real(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
            else { self = .dictionary(try container.decode([String: JSONValue].self)) }
        }

        var propertyListValue: PropertyListValue {
            switch self {
            case .string(let value): .string(value)
            case .boolean(let value): .boolean(value)
            case .integer(let value): .integer(value)
            case .real(let value): .real(value)
            case .array(let values): .array(values.map(\.propertyListValue))
            case .dictionary(let entries): .dictionary(entries.mapValues(\.propertyListValue))
            }
        }
    }
}
