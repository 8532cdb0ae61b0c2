import AppexCore
import Foundation
import Testing

/// A rule's work is bounded, not only its size: appexd evaluates every installed extension's
/// rule for every host that asks, on the thread that answers it. A rule whose work would
/// multiply past its budget (SUBQUERYs nested in SUBQUERYs) is false, and a MATCHES pattern
/// never backtracks, so neither can hold that thread.
@Suite(.timeLimit(.minutes(1))) struct EvaluationBudgetTests {
    /// Ten items of ten attachments each.
    let manyItems = ActivationItems((0..<10).map { _ in
        ActivationItems.Item(attributedContentText: "text", attachments: (0..<10).map { _ in
            ActivationItems.Attachment(registeredTypeIdentifiers: ["public.plain-text"])
        })
    })

    /// `depth` SUBQUERYs over ten numbers, each inside the last and `comparison` on each count:
    /// 10^depth steps unbounded when every element must be counted, as for `== 10`.
    func nested(_ depth: Int, _ comparison: String = "== 10") -> String {
        var rule = "TRUEPREDICATE"
        for level in 0..<depth { rule = "SUBQUERY({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, $v\(level), \(rule)).@count \(comparison)" }
        return rule
    }

    @Test func subqueriesNestedPastTheBudgetAreFalseAndStop() throws {
        #expect(try evaluate(nested(3), manyItems), "a thousand steps are within the budget")
        // 10^20 steps unbounded (the review's rule); the budget stops it after a million.
        #expect(try !evaluate(nested(20), manyItems))
        // Even under NOT, running out is false, not true.
        #expect(try !evaluate("NOT (\(nested(20)))", manyItems))
        // A real rule over a hundred attachments is well within it.
        let real = "SUBQUERY(extensionItems, $item, SUBQUERY($item.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO 'public.text').@count >= 1).@count == 10"
        #expect(try evaluate(real, manyItems))
    }

    /// A count compared with a number stops once the answer can't change: `> 0` at the first
    /// match. Twenty levels that would take 10²⁰ steps counted in full take twenty.
    @Test func aCountStopsOnceItsComparisonIsDecided() throws {
        #expect(try evaluate(nested(20, "> 0"), manyItems))
        #expect(try evaluate(nested(20, ">= 1"), manyItems))
        // Every operator answers as it would have with the whole count.
        for (comparison, expected) in [("== 10", true), ("!= 10", false), ("< 10", false), ("<= 10", true), ("> 9", true),
                                       (">= 11", false), ("== 1", false), ("> -1", true), ("< -1", false),
                                       (">= 10", true), (">= 0", true), ("< 0", false), ("< 11", true)] {
            #expect(try evaluate("SUBQUERY({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, $v, TRUEPREDICATE).@count \(comparison)") == expected,
                    "@count \(comparison)")
        }
    }

    /// `(a+)+$` over forty letters and a mismatch is 2⁴⁰ steps for a backtracking matcher
    /// (ICU, which NSRegularExpression uses). The review's rule.
    @Test(arguments: [("(a+)+$", "(a+)+"), ("(a|a)*b", "(a|a)*"), ("(a*)*b", "(a*)*"), ("a*a*a*a*a*a*a*a*b", "a*a*a*a*a*a*a*a*")])
    func aPatternThatWouldBacktrackWithoutEndIsMatchedInLinearTime(failing: String, matching: String) throws {
        let letters = String(repeating: "a", count: 5_000)
        #expect(try !evaluate("SELF MATCHES '\(failing)'", on: .string(letters + "!")))
        #expect(try evaluate("SELF MATCHES '\(matching)'", on: .string(letters)))
    }

    @Test(arguments: [
        ("ab", "a|ab", true),  // the whole text, by either branch, as NSPredicate's MATCHES
        ("abc", "a.c", true), ("a\nc", "a.c", false),
        ("2024-11-28", "\\d{4}-\\d{2}-\\d{2}", true), ("2024-1-28", "\\d{4}-\\d{2}-\\d{2}", false),
        ("public.jpeg", "public\\.(jpe?g|png)", true), ("public.gif", "public\\.(jpe?g|png)", false),
        ("Hello World", "[A-Z][a-z]+\\s\\w+", true), ("x", "[^a-w]", true), ("b", "[^a-w]", false),
        ("a-b", "[a\\-]+b", true), ("aaa", "a{2,3}", true), ("aaaa", "a{2,3}", false), ("", "a*", true),
        ("\u{E9}t\u{E9}", "\\u00e9t\\x{e9}", true), ("a.b", "\\Qa.b\\E", true), ("axb", "\\Qa.b\\E", false),
        ("named", "(?<word>n\\w+)", true), ("x", "(?:x|y)", true),
    ])
    func patternsMatchAsICUWouldForTheWholeText(text: String, pattern: String, expected: Bool) throws {
        #expect(try evaluate("SELF MATCHES \"\(pattern.replacingOccurrences(of: "\\", with: "\\\\"))\"", on: .string(text)) == expected,
                "\(text) MATCHES \(pattern)")
    }

    @Test func caseInsensitiveMatchingFoldsTheTextAndThePattern() throws {
        #expect(try evaluate("SELF MATCHES[c] 'h[A-Z]+O'", on: .string("HeLlo")))
        #expect(try !evaluate("SELF MATCHES 'h[A-Z]+O'", on: .string("HeLlo")))
    }

    @Test(arguments: [
        ("(a)\\1", "a back-reference (\\1) can't be matched in linear time"),
        ("a(?=b)", "look-around"),
        ("(?>a)", "an atomic group"),
        ("a*+", "a possessive quantifier"),
        ("(?i)a", "inline flags"),
        ("\\bword", "\\b is not supported"),
        ("a{2000}", "a count over 1000"),
        ("(a{1000}){10}", "more than 4096 states"),
    ])
    func whatNoLinearMatcherCanDoIsRefusedWhenTheRuleIsParsedWithTheConstructNamed(pattern: String, named: String) throws {
        let error = try #require(compileError("SELF MATCHES \"\(pattern.replacingOccurrences(of: "\\", with: "\\\\"))\""))
        #expect(error.message.contains(named), "\(error.message)")
        #expect(error.message.contains("can't be used"), "\(error.message)")
    }
}
