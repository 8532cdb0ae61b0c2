import AppexBundles
import AppexCore
import Foundation

/// `.strings` tables, such as an extension's `InfoPlist.strings`: the decoder returns a table
/// of strings or refuses with a reason, and a display name looked up in what it returned is
/// one of the table's strings.
enum StringsFuzzing {
    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        let table: [String: String]
        do {
            table = try StringsFile.decode(Data(input))
        } catch {
            try InvariantViolation.require(!error.reason.isEmpty, "a refusal without a reason: \(error)")
            return
        }
        for key in table.keys.prefix(8) {
            let found = Localization.string(key, in: ["en": table], languages: ["en-GB"])
            try InvariantViolation.require(found == table[key], "\"\(key)\" looked up in its own table gave \(found ?? "nothing")")
        }
    }
}
