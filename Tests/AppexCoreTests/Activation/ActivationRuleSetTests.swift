import AppexCore
import Foundation
import Testing

/// A rule set answers exactly as each of its rules alone, step budget included, while it
/// evaluates each comparison its rules share once.
@Suite struct ActivationRuleSetTests {
    /// Items of the kinds real hosts share: a page, text, images, files, several items, none.
    static let itemSets: [ActivationItems] = [
        ActivationItems([]),
        items(["public.url"], text: "Look at this"),
        items(["public.plain-text"]),
        items(["public.jpeg"]),
        items(["public.jpeg"], ["public.png"], ["public.heic"]),
        items(["public.file-url", "com.adobe.pdf"]),
        items(["com.adobe.pdf"]),
        items(["public.movie"], ["public.url"]),
        items(["com.apple.property-list"], ["public.url"]),
        items(["public.data"]),
        ActivationItems((0..<3).map { _ in
            ActivationItems.Item(attributedContentText: "text", attachments: [ActivationItems.Attachment(registeredTypeIdentifiers: ["public.url"])])
        }),
    ]

    @Test func everyCorpusRuleAnswersInASetAsItDoesAlone() throws {
        guard let corpus = try corpusRules() else { return }
        let parsed = corpus.compactMap { try? ActivationRule.parse($0.rule) }
        #expect(parsed.count > 200)
        // Each rule also made distinct by a conjunct of its own, as the share-query benchmark
        // does: sets share the rule's comparisons, and hold one more each.
        let distinct = try parsed.enumerated().compactMap { index, rule -> ActivationRule? in
            guard case .predicate(let predicate) = rule else { return nil }
            return try ActivationRule(predicateFormat: "(\(predicate.format)) AND NOT (\"com.example.type\(index)\" UTI-CONFORMS-TO \"public.folder\")")
        }
        // And by a conjunct that reads the items, testing for a type of its own: comparisons of
        // one shape, some answering as others did and some not.
        let types = ["public.image", "public.movie", "public.url", "public.text", "com.adobe.pdf", "public.data", "public.item"]
        let reading = try parsed.enumerated().compactMap { index, rule -> ActivationRule? in
            guard case .predicate(let predicate) = rule else { return nil }
            let type = index % 3 == 0 ? "com.example.type\(index)" : types[index % types.count]
            return try ActivationRule(predicateFormat: "(\(predicate.format)) AND " + Self.subquery(type, count: index % 2 == 0 ? "> 0" : "== 1"))
        }
        let rules = parsed + distinct + reading
        let set = ActivationRuleSet(rules)
        #expect(set.rules.count == rules.count)
        for items in Self.itemSets {
            let context = ActivationContext(items: items, types: activationTestTypes())
            let together = set.matches(context)
            for (index, rule) in rules.enumerated() {
                #expect(together[index] == rule.matches(context), "rule \(index) (\(rule.source)) over \(items)")
            }
        }
    }

    /// Apple's documented SUBQUERY for one type, its inner count compared with `count`.
    static func subquery(_ type: String, count: String = ">= 1") -> String {
        #"SUBQUERY(extensionItems, $item, SUBQUERY($item.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "\#(type)").@count \#(count)).@count >= 1"#
    }

    @Test func comparisonsThatDifferOnlyInTheirTypesAnswerEachForItself() throws {
        let types = ["public.image", "public.jpeg", "public.png", "public.movie", "public.url", "public.file-url", "public.text",
                     "public.plain-text", "com.adobe.pdf", "public.data", "public.item", "public.content", "com.example.unknown",
                     "PUBLIC.IMAGE", "public.folder"]
        let rules = try types.map { try ActivationRule(predicateFormat: Self.subquery($0)) }
            + types.map { try ActivationRule(predicateFormat: "NOT " + Self.subquery($0, count: "== 1")) }
            + types.map { try ActivationRule(predicateFormat: #"ANY extensionItems.attachments.registeredTypeIdentifiers UTI-EQUALS "\#($0)""#) }
            + types.map { try ActivationRule(predicateFormat: #"SUBQUERY(extensionItems, $i, SUBQUERY($i.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-EQUALS "\#($0)").@count > 0).@count > 0"#) }
        let set = ActivationRuleSet(rules)
        #expect(set.distinctComparisonCount == rules.count - 4, "in each form, the upper-cased image type is the same comparison")
        #expect(set.comparisonShapeCount == 4)
        for items in Self.itemSets + [items(["public.jpeg", "public.image"], ["PUBLIC.URL"]), items(["com.example.unknown"], ["public.folder"])] {
            let context = ActivationContext(items: items, types: activationTestTypes())
            let together = set.matches(context)
            for (index, rule) in rules.enumerated() {
                #expect(together[index] == rule.matches(context), "rule \(index) (\(rule.source)) over \(items)")
            }
        }
    }

    @Test func aShapeWhoseComparisonsEachTakeTheirOwnPathStillAnswersEachForItself() throws {
        // Forty attachments of forty unrelated types: the SUBQUERY for each type stops at its
        // own attachment, so no comparison follows another's path. Past eight paths kept and
        // sixteen misses, the set stops checking them; every answer stays each rule's own.
        let kinds = (0..<50).map { "com.example.kind\($0)" }
        let items = ActivationItems([ActivationItems.Item(attachments: kinds.prefix(40).map { ActivationItems.Attachment(registeredTypeIdentifiers: [$0]) })])
        let rules = try kinds.map { try ActivationRule(predicateFormat: Self.subquery($0)) }
            + kinds.map { try ActivationRule(predicateFormat: Self.subquery($0, count: "== 1")) }
        let set = ActivationRuleSet(rules)
        #expect(set.comparisonShapeCount == 2)
        let context = ActivationContext(items: items, types: activationTestTypes())
        let together = set.matches(context)
        #expect(together == rules.map { $0.matches(context) })
        #expect(together == Array(repeating: true, count: 40) + Array(repeating: false, count: 10)
                + Array(repeating: true, count: 40) + Array(repeating: false, count: 10))
    }

    @Test func aComparisonSharedByRulesCountsOnce() throws {
        let url = #"SUBQUERY(extensionItems, $item, SUBQUERY($item.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.url").@count == 1).@count == 1"#
        let image = #"SUBQUERY(extensionItems, $item, SUBQUERY($item.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image").@count >= 1).@count >= 1"#
        let set = ActivationRuleSet([
            try ActivationRule(predicateFormat: url),
            try ActivationRule(predicateFormat: "\(url) OR \(image)"),
            try ActivationRule(predicateFormat: "NOT (\(image))"),
            try ActivationRule(predicateFormat: "\(image) AND extensionItems.@count > 0"),
            .dictionary(try ActivationDictionary(["NSExtensionActivationSupportsImageWithMaxCount": .integer(1)])),
        ])
        #expect(set.distinctComparisonCount == 3)
        let context = ActivationContext(items: items(["public.jpeg"]), types: activationTestTypes())
        #expect(set.matches(context) == [false, true, false, true, true])
    }

    @Test func aRuleThatRunsOutOfStepsIsFalseInASetToo() throws {
        // Eight numbers per level, six levels deep, each counted in full: about 600,000 steps, within the budget once
        // and past it twice. Sharing the comparison must not make the second time free.
        var costly = "TRUEPREDICATE"
        for level in 0..<6 { costly = "SUBQUERY({1, 2, 3, 4, 5, 6, 7, 8}, $v\(level), \(costly)).@count == 8" }
        let rules = [
            try ActivationRule(predicateFormat: costly),
            try ActivationRule(predicateFormat: "(\(costly)) AND (\(costly))"),
            try ActivationRule(predicateFormat: "NOT ((\(costly)) AND (\(costly)))"),
            try ActivationRule(predicateFormat: "TRUEPREDICATE OR ((\(costly)) AND (\(costly)))"),
        ]
        let context = ActivationContext(items: ActivationItems([]), types: activationTestTypes())
        let alone = rules.map { $0.matches(context) }
        #expect(alone == [true, false, false, true], "the budget decides as this test expects")
        let set = ActivationRuleSet(rules)
        #expect(set.distinctComparisonCount == 1)
        #expect(set.matches(context) == alone)
    }
}
