import AppexCore
import Foundation

/// Reads the ITEMS.json that `match` and `query` take.
enum ItemsFile {
    static func read(_ path: String) throws -> ActivationItems {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: can't read the items file \(path): \(error.localizedDescription)")
        }
        do {
            return try ActivationItems(jsonData: data)
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(path): \(error)")
        }
    }
}
