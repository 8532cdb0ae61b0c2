import Foundation

/// One element of a compiled LIKE pattern.
enum LikeElement: Sendable, Equatable {
    case scalar(Unicode.Scalar)
    /// `?`: exactly one character.
    case one
    /// `*`: zero or more characters.
    case many
}

/// String comparisons with NSPredicate's options: `[c]` case-insensitive, `[d]` diacritic-insensitive.
enum PredicateStringMatching {
    /// The string as the options compare it: case- and diacritic-folded as asked.
    static func fold(_ text: String, _ options: StringOptions) -> String {
        let compare = options.compareOptions
        return compare.isEmpty ? text : text.folding(options: compare, locale: nil)
    }

    /// Compiles a LIKE pattern (already folded). `\*` and `\?` stand for a literal `*` and `?`.
    static func likePattern(_ pattern: String) -> [LikeElement] {
        var elements: [LikeElement] = []
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                elements.append(.scalar(scalar))
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "*" {
                if elements.last != .many { elements.append(.many) }
            } else if scalar == "?" {
                elements.append(.one)
            } else {
                elements.append(.scalar(scalar))
            }
        }
        if escaping { elements.append(.scalar("\\")) }
        return elements
    }

    /// Whether the whole of `text` matches the pattern. Linear backtracking on the last `*`.
    static func like(_ text: String, _ pattern: [LikeElement]) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var t = 0
        var p = 0
        var starP = -1
        var starT = 0
        while t < scalars.count {
            if p < pattern.count {
                switch pattern[p] {
                case .many:
                    starP = p
                    starT = t
                    p += 1
                    continue
                case .one:
                    t += 1
                    p += 1
                    continue
                case .scalar(let expected) where expected == scalars[t]:
                    t += 1
                    p += 1
                    continue
                default:
                    break
                }
            }
            guard starP >= 0 else { return false }
            p = starP + 1
            starT += 1
            t = starT
        }
        while p < pattern.count, pattern[p] == .many { p += 1 }
        return p == pattern.count
    }

    /// Compiles a MATCHES pattern: ICU's syntax, as NSPredicate uses, matched in linear time
    /// (``LinearRegex``).
    static func regex(_ pattern: String, _ options: StringOptions) throws(LinearRegex.SyntaxError) -> LinearRegex {
        try LinearRegex(pattern, caseInsensitive: options.contains(.caseInsensitive))
    }

    /// Whether the regex matches the whole of `text`, as MATCHES requires, spending `steps`.
    static func matches(_ text: String, _ regex: LinearRegex, _ options: StringOptions, steps: inout Int) -> Bool {
        let subject = options.contains(.diacriticInsensitive) ? text.folding(options: .diacriticInsensitive, locale: nil) : text
        return regex.matches(subject, steps: &steps)
    }
}

extension PredicateParser {
    /// Prepares a constant right-hand side once, at parse time.
    func prepare(
        operation: ComparisonOperator, options: StringOptions, right: ExpressionNode, operatorToken: PredicateToken
    ) throws(ActivationRuleError) -> PreparedPattern? {
        if operation == .between, let constant = right.constantValue {
            guard case .array(let bounds) = constant, bounds.count == 2 else {
                throw error(at: operatorToken, "BETWEEN needs two bounds", expected: "an aggregate such as {1, 10}")
            }
        }
        guard case .string(let text)? = right.constantValue else { return nil }
        switch operation {
        case .utiConformsTo, .utiEquals:
            return .folded(text.lowercased())
        case .like:
            return .like(PredicateStringMatching.likePattern(PredicateStringMatching.fold(text, options)))
        case .matches:
            do {
                return .regex(try PredicateStringMatching.regex(text, options))
            } catch {
                throw self.error(
                    at: operatorToken, "the MATCHES pattern \"\(text)\" can't be used: \(error.message), at character \(error.offset + 1) of the pattern",
                    hint: "MATCHES takes an ICU regular expression that must match the whole string; Appex matches it in linear time, "
                        + "so back-references, look-around and atomic or possessive forms are refused")
            }
        case .equal, .notEqual, .contains, .beginsWith, .endsWith, .in:
            return options.compareOptions.isEmpty ? nil : .folded(PredicateStringMatching.fold(text, options))
        default:
            return nil
        }
    }
}
