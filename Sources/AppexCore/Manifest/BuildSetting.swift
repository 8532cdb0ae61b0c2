/// Xcode build-setting references, `$(NAME)` and `${NAME}`, as real Info.plists hold them.
///
/// Xcode expands them when it builds a bundle. `appex bundle` does the same, and validation
/// reports any that were left, since an identifier like `$(PRODUCT_BUNDLE_IDENTIFIER)` is
/// certainly not what the author meant to install.
public enum BuildSetting {
    /// The first reference in `text`, such as `$(EXECUTABLE_NAME)`, or `nil`.
    public static func firstReference(in text: String) -> String? {
        references(in: text).first?.reference
    }

    /// Replaces every reference whose name `settings` holds; `$(NAME:modifier)` uses the plain value.
    /// References to unknown names are left in place for validation to report.
    public static func expand(_ text: String, with settings: [String: String]) -> String {
        var result = ""
        var rest = Substring(text)
        for found in references(in: text) {
            let range = found.range
            result += text[rest.startIndex..<range.lowerBound]
            result += settings[found.name] ?? found.reference
            rest = text[range.upperBound...]
        }
        return result + rest
    }

    private static func references(in text: String) -> [(reference: String, name: String, range: Range<String.Index>)] {
        var found: [(String, String, Range<String.Index>)] = []
        var index = text.startIndex
        while let dollar = text[index...].firstIndex(of: "$") {
            let open = text.index(after: dollar)
            guard open < text.endIndex, text[open] == "(" || text[open] == "{" else {
                index = open
                continue
            }
            let close: Character = text[open] == "(" ? ")" : "}"
            guard let end = text[open...].firstIndex(of: close) else { break }
            let inner = text[text.index(after: open)..<end]
            let name = inner.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                found.append((String(text[dollar...end]), name, dollar..<text.index(after: end)))
            }
            index = text.index(after: end)
        }
        return found
    }
}
