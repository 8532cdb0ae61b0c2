import AppexCore
import Testing

/// Each syntax error names its line and column (1-based) and what was expected.
@Suite struct PredicateSyntaxErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var rule: String
        var code: ActivationRuleError.Code
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { rule.debugDescription }
    }

    static let cases: [Case] = [
        Case(rule: "", code: .empty, line: 1, column: 1, message: "the predicate is empty"),
        Case(rule: "  \n\t ", code: .empty, line: 1, column: 1, message: "the predicate is empty"),
        Case(rule: "name ==", code: .syntax, line: 1, column: 8, message: "expected an expression, found the end of the rule"),
        Case(rule: "name", code: .syntax, line: 1, column: 5, message: "expected a comparison operator"),
        Case(rule: "a == 1 AND", code: .syntax, line: 1, column: 11, message: "expected an expression, found the end of the rule"),
        Case(rule: "(a == 1", code: .syntax, line: 1, column: 8, message: "expected ')' to close the '(' at line 1, column 1"),
        Case(rule: "a == 1)", code: .syntax, line: 1, column: 7, message: "unexpected text after the end of the predicate"),
        Case(rule: "a == 'abc", code: .syntax, line: 1, column: 6, message: "unterminated string"),
        Case(rule: "a ==\n  \"abc", code: .syntax, line: 2, column: 3, message: "unterminated string"),
        Case(rule: "a == 1 &\n b == 2", code: .syntax, line: 1, column: 8, message: "unexpected character"),
        Case(rule: "a ? 1", code: .syntax, line: 1, column: 3, message: "unexpected character"),
        Case(rule: "a == 'x\\q'", code: .syntax, line: 1, column: 8, message: "unknown escape in a string"),
        Case(rule: "a == 12abc", code: .syntax, line: 1, column: 8, message: "unexpected letter in a number"),
        Case(rule: "a == 0xZZ", code: .syntax, line: 1, column: 6, message: "malformed number"),
        Case(rule: "a CONTAINS[x] 'b'", code: .syntax, line: 1, column: 12, message: "unknown comparison option"),
        Case(rule: "a.@cnt == 1", code: .syntax, line: 1, column: 3, message: "unknown collection operator '@cnt'"),
        Case(rule: "a. == 1", code: .syntax, line: 1, column: 4, message: "expected a key after '.'"),
        Case(rule: "AND == 1", code: .syntax, line: 1, column: 1, message: "expected an expression, found the keyword AND"),
        Case(rule: "SUBQUERY(items, x, TRUEPREDICATE).@count > 0", code: .syntax, line: 1, column: 17,
             message: "expected a variable such as $item as SUBQUERY's second argument"),
        Case(rule: "SUBQUERY(items, $x, $x == 1.@count > 0", code: .syntax, line: 1, column: 36,
             message: "expected ')' to close the SUBQUERY at line 1, column 1"),
        Case(rule: "SUBQUERY(extensionItems, $e,\n    $e.attachments.@count > 0\n", code: .syntax, line: 3, column: 1,
             message: "expected ')' to close the SUBQUERY at line 1, column 1"),
        Case(rule: "{1, 2 == {1, 2}", code: .syntax, line: 1, column: 7, message: "expected '}' to close the aggregate"),
        Case(rule: "tags[0 == 'a'", code: .syntax, line: 1, column: 8, message: "expected ']' to close the subscript"),
        Case(rule: "$x == 1", code: .unsupported, line: 1, column: 1, message: "the variable $x is not defined"),
        Case(rule: "name == %@", code: .unsupported, line: 1, column: 9,
             message: "the format specifier %@ needs an argument, and an Info.plist rule has none"),
        Case(rule: "FUNCTION(a, 'b') == 1", code: .unsupported, line: 1, column: 1, message: "FUNCTION is not supported in activation rules"),
        Case(rule: "lowercase(a) == 'b'", code: .unsupported, line: 1, column: 1,
             message: "function calls such as lowercase(…) are not supported in activation rules"),
        Case(rule: "a MATCHES '('", code: .syntax, line: 1, column: 3, message: "the MATCHES pattern \"(\" can't be used: a ( without its ), at character 2 of the pattern"),
        Case(rule: "a BETWEEN {1}", code: .syntax, line: 1, column: 3, message: "BETWEEN needs two bounds"),
        Case(rule: "$(EXTENSION_ACTIVATION)", code: .buildSettingPlaceholder, line: 1, column: 1,
             message: "the rule contains an unexpanded build-setting placeholder"),
        Case(rule: "ANY $a.types UTI-CONFORMS-TO \\\"public.image\\\"", code: .escapedQuotes, line: 1, column: 30,
             message: "a backslash-escaped quote outside a string"),
        Case(rule: "NSExtensionActivationSupportsImageWithMaxCount", code: .keyNameAsPredicate, line: 1, column: 1,
             message: "the predicate is the key name 'NSExtensionActivationSupportsImageWithMaxCount', which never matches"),
        Case(rule: "\n  NSExtensionActivationSupportsText\n", code: .keyNameAsPredicate, line: 2, column: 3,
             message: "the predicate is the key name 'NSExtensionActivationSupportsText', which never matches"),
        Case(rule: "a == 'x\u{0}y'", code: .syntax, line: 1, column: 8, message: "unexpected NUL character in a string"),
        Case(rule: "a == 1 \u{0}", code: .syntax, line: 1, column: 8, message: "unexpected NUL character"),
        Case(rule: "\t\té == 1 AND", code: .syntax, line: 1, column: 13, message: "expected an expression, found the end of the rule"),
        Case(rule: "a ==\r\n1 OR\r\n", code: .syntax, line: 3, column: 1, message: "expected an expression, found the end of the rule"),
        Case(rule: "ANY x UTI-CONFORMS 'a'", code: .syntax, line: 1, column: 7, message: "expected a comparison operator"),
    ]

    @Test(arguments: cases)
    func reportsPosition(_ example: Case) throws {
        let error = try #require(compileError(example.rule))
        #expect(error.code == example.code)
        #expect(error.line == example.line)
        #expect(error.column == example.column)
        #expect(error.message == example.message)
        #expect(error.description.hasPrefix("line \(example.line), column \(example.column): \(example.message)"))
    }

    @Test func saysWhatWasExpectedAndFound() throws {
        let error = try #require(compileError("SUBQUERY(extensionItems, $e, TRUEPREDICATE"))
        #expect(error.expected == "')', AND or OR")
        #expect(error.found == "the end of the rule")
        let keyword = try #require(compileError("IN == 1"))
        #expect(keyword.hint == "a key spelled like a keyword must be escaped with '#', as in #IN")
        let escaped = try #require(compileError(#"a == \"b\""#))
        #expect(escaped.hint?.contains("copied from source code") == true)
        let operatorHint = try #require(compileError("ANY a UTI-CONFORMS 'x'"))
        #expect(operatorHint.hint == "the operator is spelled UTI-CONFORMS-TO")
        let caseHint = try #require(compileError("a.@COUNT == 1"))
        #expect(caseHint.hint == "collection operators are case-sensitive: write @count")
    }

    @Test func ruleValueOfAnotherType() throws {
        #expect(throws: ActivationRuleError.self) { try ActivationRule.parse(.integer(1)) }
        do {
            _ = try ActivationRule.parse(.array(["public.image"]))
        } catch {
            #expect(error.code == .invalidRuleType)
            #expect(error.description.contains("an array"))
        }
    }
}
