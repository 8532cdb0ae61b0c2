import AppexCore
import Foundation

/// Printing for people and for scripts, in one place.
enum Output {
    /// Prints `value` as pretty, key-sorted JSON on stdout.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// Prints diagnostics one per line, errors and warnings to stderr when `toStandardError`.
    static func diagnostics(_ diagnostics: [Diagnostic], toStandardError: Bool = false) {
        for diagnostic in diagnostics {
            if toStandardError {
                FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
            } else {
                print(diagnostic)
            }
        }
    }
}
