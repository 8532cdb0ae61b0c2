import AppexCore
import Foundation
import Testing

/// Rules built to crash or exhaust the parser get a clear error instead.
@Suite struct HostileInputTests {
    @Test func hundredThousandParentheses() throws {
        let rule = String(repeating: "(", count: 100_000) + "TRUEPREDICATE" + String(repeating: ")", count: 100_000)
        let error = try #require(compileError(rule))
        // 200 KB is over the length limit, which is checked first.
        #expect(error.code == .tooLong)
    }

    @Test(arguments: [
        String(repeating: "(", count: 60_000) + "TRUEPREDICATE" + String(repeating: ")", count: 60),
        String(repeating: "NOT ", count: 10_000) + "TRUEPREDICATE",
        String(repeating: "! ", count: 30_000) + "TRUEPREDICATE",
        "a == " + String(repeating: "-", count: 50_000) + "1",
        "a == " + String(repeating: "{", count: 20_000),
        "a == 1" + String(repeating: " + 1", count: 10_000),
        "a" + String(repeating: "[0]", count: 10_000) + " == 1",
        String(repeating: "SUBQUERY(x, $v, ", count: 3_000) + "TRUEPREDICATE",
        "a == " + String(repeating: "(", count: 50_000) + "1",
    ])
    func deepNesting(_ rule: String) throws {
        let error = try #require(compileError(rule))
        #expect(error.code == .tooDeep)
        #expect(error.line == 1)
        #expect(error.message == "the predicate nests deeper than \(ActivationRuleLimits.maximumNesting) levels")
    }

    @Test func nestingAtTheLimitParses() throws {
        let depth = ActivationRuleLimits.maximumNesting
        let rule = String(repeating: "(", count: depth) + "1 == 1" + String(repeating: ")", count: depth)
        #expect(try evaluate(rule))
        #expect(compileError(String(repeating: "(", count: depth + 1) + "1 == 1" + String(repeating: ")", count: depth + 1))?.code == .tooDeep)
    }

    @Test func fiveMegabyteRule() throws {
        let rule = "a == '" + String(repeating: "x", count: 5 * 1024 * 1024) + "'"
        let error = try #require(compileError(rule))
        #expect(error.code == .tooLong)
        #expect(error.description.contains("over the limit of \(ActivationRuleLimits.maximumLength) bytes"))
    }

    @Test func longFlatRuleWithinTheLimitParses() throws {
        let terms = Array(repeating: "a == 1", count: 5_000).joined(separator: " OR ")
        #expect(terms.utf8.count < ActivationRuleLimits.maximumLength)
        #expect(try evaluate(terms + " OR TRUEPREDICATE"))
    }

    @Test func unterminatedStringAtTheEnd() throws {
        let error = try #require(compileError("SUBQUERY(extensionItems, $e, $e.attributedContentText == \"abc"))
        #expect(error.message == "unterminated string")
        #expect(error.column == 58)
    }

    @Test func nulBytes() throws {
        #expect(compileError("\u{0}")?.message == "unexpected NUL character")
        #expect(compileError("TRUEPREDICATE\u{0}")?.column == 14)
    }

    @Test func invalidUTF8IsRepairedThenRejected() throws {
        // A Swift String can't hold invalid UTF-8: decoding replaces it with U+FFFD, which is no token.
        let bytes: [UInt8] = [0x61, 0x20, 0x3D, 0x3D, 0x20, 0xFF, 0xFE]
        let rule = String(decoding: bytes, as: UTF8.self)
        let error = try #require(compileError(rule))
        #expect(error.line == 1)
        #expect(error.column == 6)
        #expect(error.message == "the rule holds U+FFFD, the replacement character left where invalid UTF-8 was decoded")
    }

    @Test func manyNoBreakSpacesAndByteOrderMarks() throws {
        let padding = String(repeating: "\u{A0}\u{FEFF}", count: 6_000)
        #expect(try evaluate(padding + "TRUEPREDICATE" + padding))
    }

    @Test func controlCharacters() throws {
        let error = try #require(compileError("a == 1 \u{7}"))
        #expect(error.found == "U+0007")
    }
}
