import AppexWire
import Foundation

/// An error in one line, as hosts show it: its description and, for an `NSError`, what to do.
public enum ErrorText {
    public static func describe(_ error: any Error) -> String {
        // appexd's and the runtime's own errors carry their message, which NSError bridging loses.
        if let info = error as? ErrorInfo { return info.description }
        let error = error as NSError
        let suggestion = error.localizedRecoverySuggestion.map { " \($0)" } ?? ""
        return "\(error.localizedDescription) (\(error.domain) \(error.code))\(suggestion)"
    }
}
