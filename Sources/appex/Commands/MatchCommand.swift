import AppexBundles
import AppexCore
import ArgumentParser
import Foundation

struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Evaluate an activation rule against items, as a host's query would.",
        discussion: """
            --items takes an array of items as JSON, inline, in a file, or on standard input (-), such as
              --items '[{"attributedContentText": "hi", "attachments": [{"registeredTypeIdentifiers": ["public.jpeg"]}]}]'
            Prints `match` or `no match`, with exit status 0 or 1. A rule that does not parse exits 2 and gives its line:column.
            """
    )

    @Option(name: .customLong("rule-string"), help: "The rule as an NSPredicate format string.")
    var ruleString: String?

    @Option(name: .customLong("rule"), help: "A file with the predicate text, or a plist or JSON with the dictionary form; - reads standard input.", completion: .file())
    var ruleFile: String?

    @Option(name: .customLong("bundle"), help: "An .appex whose NSExtensionActivationRule to use.", completion: .directory)
    var bundle: String?

    @Option(help: "The items: JSON, inline or in a file; - reads standard input.", completion: .file())
    var items: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        guard [ruleString, ruleFile, bundle].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --rule-string, --rule and --bundle")
        }
    }

    struct Result: Encodable {
        var match: Bool
        var rule: PropertyListValue
    }

    func run() throws {
        let source = try ruleSource()
        let rule: ActivationRule
        do {
            rule = try ActivationRule.parse(source)
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: the rule does not parse: \(error)")
        }
        let matched = rule.matches(try ItemsFile.read(items), types: .system)
        if json { return try Output.json(Result(match: matched, rule: source)) }
        print(matched ? "match" : "no match")
        if !matched { throw CommandFailure.silent(CommandFailure.no) }
    }

    private func ruleSource() throws -> PropertyListValue {
        if let ruleString { return .string(ruleString) }
        if let ruleFile { return try RuleFile.read(ruleFile) }
        return try RuleFile.rule(inBundle: bundle!)
    }
}

/// Reads a rule from a file: predicate text, or the dictionary form as a plist or JSON.
enum RuleFile {
    static func read(_ path: String) throws -> PropertyListValue {
        let data = try CommandInput.read(path, what: "the rule file", limit: PropertyListValue.maximumEncodedSize)
        if let object = try? JSONSerialization.jsonObject(with: data), let value = try? PropertyListValue(foundationObject: object),
            value.dictionaryValue != nil
        {
            return value
        }
        let text = String(decoding: data, as: UTF8.self)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<plist") || data.starts(with: Data("bplist".utf8)) || trimmed.hasPrefix("{") {
            let value: PropertyListValue
            do {
                value = try PropertyListValue(decoding: data)
            } catch {
                throw CommandFailure(status: CommandFailure.trouble, "error: the rule file \(path): \(error)")
            }
            guard value.dictionaryValue != nil || value.stringValue != nil else {
                throw CommandFailure(status: CommandFailure.trouble, "error: the rule file \(path) holds a \(value.kindName), not a rule")
            }
            return value
        }
        return .string(text)
    }

    static func rule(inBundle path: String) throws -> PropertyListValue {
        let url = URL(fileURLWithPath: path)
        let info = url.pathExtension == "plist" ? url : url.appendingPathComponent(BundleLayout.infoPlist)
        let plist: PropertyListValue
        do {
            plist = try PropertyListValue(decoding: Data(contentsOf: info))
        } catch let error as PropertyListError {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(info.path): \(error)")
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(info.path) does not exist; --bundle takes an .appex folder or its Info.plist")
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: can't read \(info.path): \(FileErrorText.describe(error))")
        }
        guard let rule = plist["NSExtension"]?["NSExtensionAttributes"]?["NSExtensionActivationRule"] else {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(info.path) has no NSExtension.NSExtensionAttributes.NSExtensionActivationRule")
        }
        return rule
    }
}
