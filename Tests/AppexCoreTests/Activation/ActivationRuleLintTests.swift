import AppexCore
import Testing

/// Lint finds the mistakes that parse but misbehave.
@Suite struct ActivationRuleLintTests {
    func lint(_ format: String) throws -> [ActivationRuleWarning] {
        ActivationRuleLint.check(try ActivationRule(predicateFormat: format), types: activationTestTypes())
    }

    func lint(_ dictionary: PropertyListValue) throws -> [ActivationRuleWarning] {
        ActivationRuleLint.check(try ActivationRule.parse(dictionary), types: activationTestTypes())
    }

    static let imageRule = #"SUBQUERY(extensionItems, $item, SUBQUERY($item.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image").@count > 0).@count > 0"#

    @Test func aSpecificRuleIsClean() throws {
        #expect(try lint(Self.imageRule).isEmpty)
        #expect(try lint(["NSExtensionActivationSupportsImageWithMaxCount": 10, "NSExtensionActivationSupportsText": true]).isEmpty)
    }

    @Test(arguments: [
        "TRUEPREDICATE", "  truepredicate\n", "1 == 1", "TRUEPREDICATE OR " + imageRule, imageRule + " || 'a' == 'a'",
        "NOT FALSEPREDICATE", "extensionItems.@count >= 0", "SUBQUERY(extensionItems, $i, TRUEPREDICATE).@count > -1",
        "(1 < 2) AND (2 BETWEEN {1, 3})",
    ])
    func alwaysTrueIsADistributionProblem(_ format: String) throws {
        let warnings = try lint(format)
        let warning = try #require(warnings.first { $0.code == .matchesEverything })
        #expect(warning.severity == .distribution)
        #expect(warning.line == 1 && warning.column == 1)
    }

    @Test func alwaysFalse() throws {
        #expect(try lint("FALSEPREDICATE").map(\.code) == [.neverMatches])
        #expect(try lint("extensionItems.@count < 0 AND " + Self.imageRule).map(\.code) == [.neverMatches])
    }

    @Test func misspelledTypeGetsASuggestion() throws {
        let warnings = try lint(#"ANY extensionItems.attachments.registeredTypeIdentifiers.@unionOfArrays UTI-CONFORMS-TO "public.camera-raw-imag""#)
        let warning = try #require(warnings.first)
        #expect(warning.code == .unknownType)
        #expect(warning.hint == "did you mean public.camera-raw-image?")
        #expect(warning.column == 73)
        #expect(try lint(#"ANY $x UTI-CONFORMS-TO 'pubilc.jpeg'"#.replacingDollar).first?.hint == "did you mean public.jpeg?")
    }

    @Test func mimeTypeWhereATypeBelongs() throws {
        let warnings = try lint(#"SUBQUERY(extensionItems, $i, SUBQUERY($i.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "image/png").@count > 0).@count > 0"#)
        #expect(warnings.map(\.code) == [.mimeTypeAsType])
        #expect(warnings.first?.hint == "use the uniform type identifier public.png")
        #expect(try lint(#"ANY extensionItems.attachments.registeredTypeIdentifiers.@unionOfArrays UTI-EQUALS "application/pdf""#).first?.hint == "use the uniform type identifier com.adobe.pdf")
    }

    @Test func broadTypes() throws {
        #expect(try lint(#"SUBQUERY(extensionItems, $i, SUBQUERY($i.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.item").@count > 0).@count > 0"#).map(\.code) == [.broadType])
    }

    @Test func missingAny() throws {
        let warnings = try lint(#"SUBQUERY(extensionItems, $i, SUBQUERY($i.attachments, $a, $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image").@count > 0).@count > 0"#)
        #expect(warnings.map(\.code) == [.missingAny])
        let nested = try lint(#"ANY extensionItems.attachments.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image""#)
        #expect(nested.map(\.code) == [.missingAny])
        #expect(try !evaluate(#"ANY extensionItems.attachments.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image""#, items(["public.jpeg"])))
    }

    @Test func warningsAreCapped() throws {
        let rule = (0..<500).map { #"ANY extensionItems UTI-CONFORMS-TO "x.y\#($0)""# }.joined(separator: " OR ")
        #expect(try lint(rule).count == 50)
    }

    @Test func unknownKeyPaths() throws {
        let warnings = try lint(#"SUBQUERY(extensionItems, $i, SUBQUERY($i.attachment, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image").@count > 0).@count > 0"#)
        #expect(warnings.map(\.code) == [.unknownKeyPath])
        #expect(warnings.first?.hint == "did you mean attachments?")
        #expect(try lint(#"ANY NSExtensionItems.attachments.contentTypeUTI == "public.url""#).first?.code == .unknownKeyPath)
        let rootInside = try lint("SUBQUERY(extensionItems, $i, extensionItems.@count <= 20).@count > 0")
        #expect(rootInside.first?.hint?.hasPrefix("inside SUBQUERY") == true)
    }

    @Test func precedenceSurprise() throws {
        let rule = """
            SUBQUERY(extensionItems, $i, SUBQUERY($i.attachments, $a,
                ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.file-url"
                OR ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.url"
                AND NOT (ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.folder")
            ).@count > 0).@count > 0
            """
        let warning = try #require(try lint(rule).first)
        #expect(warning.code == .precedence)
        #expect(warning.line == 4 && warning.column == 5)
        #expect(try lint("(a == 1 OR b == 2) AND c == 3").allSatisfy { $0.code != .precedence })
        #expect(try lint("a == 1 OR (b == 2 AND c == 3)").allSatisfy { $0.code != .precedence })
        #expect(try lint("a == 1 AND b == 2 OR c == 3").contains { $0.code == .precedence })
    }

    @Test func dictionaryKeys() throws {
        let warnings = try lint([
            "NSExtensionActivationSupportsWebPageWithMaxCoun": 10, "NSExtensionActivationSupportsImageWithMaxCount": 1,
            "NSExtensionActivationSupportsVideoWithMaxCount": 1,
        ])
        #expect(warnings.map(\.code) == [.unknownKey, .unknownKey])
        #expect(warnings.map(\.hint) == [
            "did you mean NSExtensionActivationSupportsMovieWithMaxCount?", "did you mean NSExtensionActivationSupportsWebPageWithMaxCount?",
        ])
        let spaced = try lint(["NSExtensionActivationSupportsImageWithMaxCount\n": 1])
        #expect(spaced.first?.message == "the key has white space around it, so it is not NSExtensionActivationSupportsImageWithMaxCount")
    }

    @Test func dictionaryValues() throws {
        let warnings = try lint([
            "NSExtensionActivationSupportsImageWithMaxCount": "1", "NSExtensionActivationSupportsText": 1,
            "NSExtensionActivationSupportsWebPageWithMaxCount": "$(EXTENSION_ACTIVATION)", "NSExtensionActivationSupportsMovieWithMaxCount": .real(100),
        ])
        #expect(warnings.map(\.code) == [.valueType, .valueType, .valueType, .valueType])
        #expect(warnings.map(\.key) == [
            "NSExtensionActivationSupportsImageWithMaxCount", "NSExtensionActivationSupportsMovieWithMaxCount",
            "NSExtensionActivationSupportsText", "NSExtensionActivationSupportsWebPageWithMaxCount",
        ])
        #expect(warnings[0].message == "is the string \"1\", read as 1")
        #expect(warnings[3].hint?.hasPrefix("the build-setting placeholder $(EXTENSION_ACTIVATION) was not expanded, so it reads as 0") == true)
    }

    @Test func dictionariesThatMatchNothingOrEverything() throws {
        #expect(try lint([:]).map(\.code) == [.neverMatches])
        #expect(try lint(["NSExtensionActivationSupportsImageWithMaxCount": 0, "NSExtensionActivationSupportsText": false]).map(\.code) == [.neverMatches])
        let any = try lint(["NSExtensionActivationSupportsAttachmentsWithMaxCount": 5])
        #expect(any.map(\.code) == [.matchesEverything])
        #expect(any.first?.severity == .distribution)
    }

    @Test func predicateInsideADictionary() throws {
        let warnings = try lint(["NSExtensionActivationRule": .string(Self.imageRule), "NSExtensionActivationSupportsImageWithMaxCount": 1])
        #expect(warnings.map(\.code) == [.predicateInDictionary])
        #expect(try lint(["NSExtensionJavaScriptPreprocessingFile": "Action", "NSExtensionActivationSupportsWebPageWithMaxCount": 1]).map(\.code) == [.misplacedKey])
    }

    @Test func everyCorpusRuleLintsWithoutCrashing() throws {
        guard let rules = try corpusRules() else { return }
        var distribution = 0
        for rule in rules {
            guard let parsed = try? ActivationRule.parse(rule.rule) else { continue }
            distribution += ActivationRuleLint.check(parsed, types: activationTestTypes()).filter { $0.severity == .distribution }.count
        }
        #expect(distribution > 0)
    }
}

extension String {
    /// Test rules spell a free variable as `$x`; these use a key instead, since free variables don't compile.
    fileprivate var replacingDollar: String { replacing("$x", with: "extensionItems.attachments.registeredTypeIdentifiers.@unionOfArrays") }
}
