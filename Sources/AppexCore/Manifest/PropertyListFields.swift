/// Reads typed fields out of a property-list dictionary, recording a diagnostic for every
/// missing or ill-typed key instead of stopping at the first.
struct PropertyListFields {
    let entries: [String: PropertyListValue]
    let file: String
    let keyPathPrefix: String
    var diagnostics: [Diagnostic] = []

    init(_ entries: [String: PropertyListValue], file: String, keyPathPrefix: String = "") {
        self.entries = entries
        self.file = file
        self.keyPathPrefix = keyPathPrefix
    }

    func keyPath(_ key: String) -> String {
        keyPathPrefix.isEmpty ? key : "\(keyPathPrefix).\(key)"
    }

    /// A string that must be present and non-empty.
    mutating func requiredString(_ key: String, hint: String) -> String? {
        guard let value = entries[key] else {
            report(.error, "missing-key", key, "is missing; it is required", hint: hint)
            return nil
        }
        return string(value, key: key, hint: hint)
    }

    /// A string that may be absent.
    mutating func optionalString(_ key: String) -> String? {
        guard let value = entries[key] else { return nil }
        return string(value, key: key, hint: nil)
    }

    /// A dictionary that may be absent.
    mutating func optionalDictionary(_ key: String) -> [String: PropertyListValue]? {
        guard let value = entries[key] else { return nil }
        guard let dictionary = value.dictionaryValue else {
            reportType(key, expected: "dictionary", found: value)
            return nil
        }
        return dictionary
    }

    /// An array that may be absent.
    mutating func optionalArray(_ key: String) -> [PropertyListValue]? {
        guard let value = entries[key] else { return nil }
        guard let array = value.arrayValue else {
            reportType(key, expected: "array", found: value)
            return nil
        }
        return array
    }

    /// A string or an array of strings (as `UTTypeConformsTo` allows), or empty when absent.
    mutating func stringList(_ key: String) -> [String] {
        guard let value = entries[key] else { return [] }
        switch value {
        case .string(let single):
            return reportsBuildSetting(in: single, key: key) ? [] : [single]
        case .array(let elements):
            var strings: [String] = []
            for (index, element) in elements.enumerated() {
                if let string = element.stringValue {
                    if !reportsBuildSetting(in: string, key: "\(key)[\(index)]") { strings.append(string) }
                } else {
                    report(.error, "wrong-type", "\(key)[\(index)]", "is a \(element.kindName), not a string")
                }
            }
            return strings
        default:
            reportType(key, expected: "string or array of strings", found: value)
            return []
        }
    }

    /// A boolean that may be absent; a YES/NO string is accepted with a warning, as Apple's tools do.
    mutating func optionalBoolean(_ key: String) -> Bool? {
        guard let value = entries[key] else { return nil }
        if let boolean = value.booleanValue { return boolean }
        if let string = value.stringValue, ["yes", "no", "true", "false"].contains(string.lowercased()) {
            report(.warning, "string-typed-boolean", key, "is the string \"\(string)\", not a boolean", hint: "write <true/> or <false/>")
            return ["yes", "true"].contains(string.lowercased())
        }
        reportType(key, expected: "boolean", found: value)
        return nil
    }

    mutating func report(
        _ severity: Diagnostic.Severity, _ code: String, _ key: String, _ message: String, hint: String? = nil
    ) {
        diagnostics.append(Diagnostic(severity, code, file: file, keyPath: keyPath(key), message, hint: hint))
    }

    private mutating func reportType(_ key: String, expected: String, found: PropertyListValue) {
        report(.error, "wrong-type", key, "is a \(found.kindName), but must be a \(expected)")
    }

    private mutating func string(_ value: PropertyListValue, key: String, hint: String?) -> String? {
        guard let string = value.stringValue else {
            reportType(key, expected: "string", found: value)
            return nil
        }
        if reportsBuildSetting(in: string, key: key) { return nil }
        if string.isEmpty, hint != nil {
            report(.error, "empty-value", key, "is empty", hint: hint)
            return nil
        }
        return string
    }

    /// Reports an Xcode build setting left in `string`, such as `$(PRODUCT_BUNDLE_IDENTIFIER)`,
    /// and returns whether there was one.
    private mutating func reportsBuildSetting(in string: String, key: String) -> Bool {
        guard let setting = BuildSetting.firstReference(in: string) else { return false }
        report(
            .error, "unexpanded-build-setting", key, "holds the unexpanded build setting \(setting)",
            hint: "give its value with `appex bundle --set NAME=VALUE`, or write the value itself"
        )
        return true
    }
}
