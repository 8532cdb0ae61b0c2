import Foundation

/// Checks a parsed rule for mistakes that parse but misbehave: rules that match everything or
/// nothing, undeclared or MIME types, misspelled keys, string counts, precedence surprises.
///
/// ```swift
/// for warning in ActivationRuleLint.check(rule, types: graph) where warning.severity == .distribution {
///     print(warning) // TRUEPREDICATE matches every input; a store rejects it
/// }
/// ```
public enum ActivationRuleLint {
    /// Every warning for `rule`, in the order found.
    public static func check(_ rule: ActivationRule, types: UTTypeGraph) -> [ActivationRuleWarning] {
        switch rule {
        case .dictionary(let dictionary): checkDictionary(dictionary)
        case .predicate(let predicate): PredicateLinter(predicate: predicate, types: types).run()
        }
    }

    static func checkDictionary(_ dictionary: ActivationDictionary) -> [ActivationRuleWarning] {
        typealias Key = ActivationDictionary.Key
        var warnings: [ActivationRuleWarning] = []
        let counts: [Key] = [.attachmentsMaxCount, .attachmentsMinCount, .fileMaxCount, .imageMaxCount, .movieMaxCount, .webURLMaxCount, .webPageMaxCount, .dictionaryVersion]
        for (name, value) in dictionary.source.sorted(by: { $0.key < $1.key }) {
            if let key = Key(rawValue: name) {
                warnings += valueWarnings(key, value, isCount: counts.contains(key))
                continue
            }
            warnings.append(unknownKeyWarning(name, value))
        }
        if dictionary.source.isEmpty {
            warnings.append(ActivationRuleWarning(
                .neverMatches, "the dictionary is empty, so the rule matches nothing",
                hint: "add the kinds the extension accepts, such as NSExtensionActivationSupportsImageWithMaxCount = 1"))
        } else if dictionary.attachmentsMaxCount == 0, dictionary.fileMaxCount == 0, dictionary.imageMaxCount == 0,
            dictionary.movieMaxCount == 0, dictionary.webURLMaxCount == 0, dictionary.webPageMaxCount == 0, !dictionary.supportsText
        {
            warnings.append(ActivationRuleWarning(
                .neverMatches, "every count is 0 and text is not supported, so the rule matches nothing",
                hint: "a count of 0 means that kind is not supported; set the maximum of each kind the extension accepts"))
        }
        if dictionary.attachmentsMaxCount > 0 {
            warnings.append(ActivationRuleWarning(
                .matchesEverything, "accepts attachments of every type", severity: .distribution,
                key: Key.attachmentsMaxCount.rawValue,
                hint: "name the kinds the extension handles (image, movie, file, web URL, text), or write a predicate with UTI-CONFORMS-TO"))
        }
        if dictionary.source[Key.dictionaryVersion.rawValue] != nil, ![1, 2].contains(dictionary.dictionaryVersion) {
            warnings.append(ActivationRuleWarning(
                .valueType, "version \(dictionary.dictionaryVersion) is not a known dictionary version", key: Key.dictionaryVersion.rawValue,
                hint: "use 2, or remove the key"))
        }
        return warnings
    }

    private static func valueWarnings(_ key: ActivationDictionary.Key, _ value: PropertyListValue, isCount: Bool) -> [ActivationRuleWarning] {
        let expected = isCount ? "<integer>" : "<true/> or <false/>"
        switch value {
        case .string(let text):
            let reads = isCount ? "\(ActivationDictionary.integerValue(value) ?? 0)" : ((ActivationDictionary.booleanValue(value) ?? false) ? "true" : "false")
            var hint = "write \(expected); a string is read with \(isCount ? "integerValue" : "boolValue"), as Apple does"
            if text.contains("$(") || text.contains("${") {
                hint = "the build-setting placeholder \(text) was not expanded, so it reads as \(reads); write \(expected)"
            }
            return [ActivationRuleWarning(.valueType, "is the string \"\(text)\", read as \(reads)", key: key.rawValue, hint: hint)]
        case .real(let number) where isCount:
            return [ActivationRuleWarning(.valueType, "is the real \(number), read as \(ActivationDictionary.integerValue(value) ?? 0)", key: key.rawValue, hint: "write \(expected)")]
        case .integer(let number) where !isCount:
            return [ActivationRuleWarning(.valueType, "is the integer \(number), read as \(number != 0)", key: key.rawValue, hint: "write \(expected)")]
        case .boolean(let flag) where isCount:
            return [ActivationRuleWarning(.valueType, "is a Boolean, read as \(flag ? 1 : 0)", key: key.rawValue, hint: "write \(expected)")]
        case .integer(let number) where isCount && number < 0:
            return [ActivationRuleWarning(.valueType, "is negative, read as 0 (not supported)", key: key.rawValue, hint: "write 0 or a positive maximum")]
        default:
            return []
        }
    }

    private static func unknownKeyWarning(_ name: String, _ value: PropertyListValue) -> ActivationRuleWarning {
        let trimmed = name.trimmingWhiteSpace
        if trimmed != name, ActivationDictionary.Key(rawValue: trimmed) != nil {
            return ActivationRuleWarning(
                .unknownKey, "the key has white space around it, so it is not \(trimmed)", key: name.debugDescription,
                hint: "remove the white space from the <key>")
        }
        switch name {
        case "NSExtensionActivationRule":
            let isPredicate = value.stringValue != nil
            return ActivationRuleWarning(
                .predicateInDictionary, isPredicate ? "a predicate string nested inside the dictionary is ignored" : "a rule nested inside the dictionary is ignored",
                key: name, hint: "make NSExtensionActivationRule itself the predicate string, or keep only the dictionary keys")
        case "NSExtensionJavaScriptPreprocessingFile":
            return ActivationRuleWarning(
                .misplacedKey, "belongs in NSExtensionAttributes, not inside the activation rule", key: name,
                hint: "move it up one level, beside NSExtensionActivationRule")
        default:
            break
        }
        let known = ActivationDictionary.Key.allCases.map(\.rawValue)
        var hint = "Appex ignores unknown keys, as Apple does."
        let synonyms = name.replacingOccurrences(of: "Video", with: "Movie").replacingOccurrences(of: "Photo", with: "Image")
        if let suggestion = LintSuggestions.closest(to: synonyms, among: known) {
            hint = "did you mean \(suggestion)?"
        }
        if name.hasSuffix("WithType") || name.hasSuffix("WithTypes") || name.contains("AttachmentAttribute") {
            hint += " There is no key for specific types; write a predicate with UTI-CONFORMS-TO instead"
        }
        return ActivationRuleWarning(.unknownKey, "is not a documented activation-rule key, so it is ignored", key: name, hint: hint)
    }
}

extension String {
    var trimmingWhiteSpace: String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
