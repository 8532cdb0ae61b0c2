import AppexCore
import Foundation

/// Printing for people and for scripts, in one place.
enum Output {
    /// Prints `value` as pretty, key-sorted JSON on stdout.
    static func json(_ value: some Encodable) throws {
        try write(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// Prints `value` as key-sorted JSON on one line of stdout: one record of a stream.
    static func jsonLine(_ value: some Encodable) throws {
        try write(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func write(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// Prints diagnostics one per line, errors and warnings to stderr when `toStandardError`.
    /// A diagnostic may quote the bundle's text, so its control characters are escaped.
    /// On a terminal that takes colour, the severity is red for an error, yellow for a warning.
    static func diagnostics(_ diagnostics: [Diagnostic], toStandardError: Bool = false) {
        let coloured = Colour.isWanted(on: toStandardError ? STDERR_FILENO : STDOUT_FILENO)
        for diagnostic in diagnostics {
            var line = diagnostic.description.escapingControlCharacters
            if coloured, let colon = line.firstIndex(of: ":") {
                let severity = String(line[..<colon])
                let painted = diagnostic.severity == .error ? Colour.red(severity) : diagnostic.severity == .warning ? Colour.yellow(severity) : severity
                line = painted + line[colon...]
            }
            if toStandardError {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            } else {
                print(line)
            }
        }
    }
}
