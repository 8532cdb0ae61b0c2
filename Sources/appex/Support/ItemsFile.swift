import AppexCore
import Foundation

/// Reads the items that `match` and `query` take with `--items`: JSON given inline, a file,
/// or standard input for `-`.
enum ItemsFile {
    static func read(_ argument: String) throws -> ActivationItems {
        let trimmed = argument.drop { $0.isWhitespace }
        let isInline = trimmed.first == "[" || trimmed.first == "{"
        let data = isInline ? Data(argument.utf8) : try CommandInput.read(argument, what: "the items file", limit: ActivationItems.maximumJSONSize)
        do {
            return try ActivationItems(jsonData: data)
        } catch {
            let source = isInline ? "the items given inline" : argument == CommandInput.standardInput ? "the items on standard input" : argument
            throw CommandFailure(status: CommandFailure.trouble, "error: \(source): \(error)")
        }
    }
}
