/// One entry of `CFBundleURLTypes`: URL schemes that an app opens.
public struct URLType: Sendable, Hashable, Codable {
    /// `CFBundleURLName`: an abstract name for the type, usually reverse-DNS.
    public var name: String?
    /// `CFBundleURLSchemes`: the schemes, such as `notes`.
    public var schemes: [String]
    /// `CFBundleTypeRole`: `Editor`, `Viewer` or `None`.
    public var role: String?

    public init(name: String? = nil, schemes: [String], role: String? = nil) {
        self.name = name
        self.schemes = schemes
        self.role = role
    }
}

extension URLType {
    /// Reads `CFBundleURLTypes`, recording every problem.
    static func readAll(_ fields: inout PropertyListFields) -> [URLType] {
        guard let entries = fields.optionalArray("CFBundleURLTypes") else { return [] }
        var types: [URLType] = []
        for (index, entry) in entries.enumerated() {
            let keyPath = "CFBundleURLTypes[\(index)]"
            guard let dictionary = entry.dictionaryValue else {
                fields.report(.error, "wrong-type", keyPath, "is a \(entry.kindName), but must be a dictionary")
                continue
            }
            var inner = PropertyListFields(dictionary, file: fields.file, keyPathPrefix: fields.keyPath(keyPath))
            let schemes = inner.stringList("CFBundleURLSchemes")
            for scheme in schemes where !URLType.isValidScheme(scheme) {
                inner.report(
                    .error, "invalid-url-scheme", "CFBundleURLSchemes", "\"\(scheme)\" is not a valid URL scheme",
                    hint: "a scheme starts with a letter and holds only letters, digits, +, - and ."
                )
            }
            types.append(URLType(name: inner.optionalString("CFBundleURLName"), schemes: schemes, role: inner.optionalString("CFBundleTypeRole")))
            fields.diagnostics += inner.diagnostics
        }
        return types
    }

    /// Whether `scheme` has RFC 3986's shape: a letter, then letters, digits, `+`, `-` or `.`.
    static func isValidScheme(_ scheme: String) -> Bool {
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = scheme.unicodeScalars.first, isLetter(first) else { return false }
        return scheme.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
    }
}
