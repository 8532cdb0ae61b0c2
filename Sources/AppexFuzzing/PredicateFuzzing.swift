import AppexCore
import Foundation

/// NSPredicate activation rules, as an extension's Info.plist may hold any text: the parser
/// accepts or refuses with a position inside the rule, and what it accepts lints and
/// evaluates, the same way each time and the same way in an ``ActivationRuleSet``, against
/// items of every shape.
enum PredicateFuzzing {
    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        let format = String(decoding: input, as: UTF8.self)
        let rule: ActivationRule
        do {
            rule = try ActivationRule(predicateFormat: format)
        } catch {
            try InvariantViolation.require(!error.message.isEmpty, "a refusal without a message: \(error)")
            let lineBreaks = format.unicodeScalars.count { $0 == "\n" || $0 == "\r" }
            if let line = error.line {
                try InvariantViolation.require((1...lineBreaks + 1).contains(line), "line \(line) is outside a rule of \(lineBreaks + 1) lines: \(error)")
            }
            if let column = error.column {
                try InvariantViolation.require((1...format.unicodeScalars.count + 1).contains(column), "column \(column) is outside the rule: \(error)")
            }
            return
        }
        _ = ActivationRuleLint.check(rule, types: .system)
        // In a set beside rules that share its comparisons (negated, and after a SUBQUERY that
        // moves its variables' slots) or their shapes (other types), each answers as it does alone.
        let companions = ["NOT (\(format)\n)", "SUBQUERY(extensionItems, $fuzz, TRUEPREDICATE).@count >= 0 AND (\(format)\n)",
                          format.replacingOccurrences(of: "image", with: "movie"), format.replacingOccurrences(of: "public.", with: "com.example.")]
        let rules = [rule] + companions.compactMap { try? ActivationRule(predicateFormat: $0) }
        let set = ActivationRuleSet(rules)
        for context in contexts {
            let first = rule.matches(context)
            try InvariantViolation.require(rule.matches(context) == first, "the rule matched the same items once and not again")
            let together = set.matches(context)
            for (index, member) in rules.enumerated() {
                try InvariantViolation.require(together[index] == member.matches(context),
                                               "in a rule set, \(member.source) answered \(together[index]), and alone the opposite")
            }
        }
    }

    /// Items of the shapes rules are written against: none, a web page, photos and a file,
    /// and File Provider items.
    static let contexts: [ActivationContext] = {
        typealias Item = ActivationItems.Item
        typealias Attachment = ActivationItems.Attachment
        let page = Item(attributedTitle: "A page", attributedContentText: "Some text", userInfo: ["source": "browser", "count": 2],
                        attachments: [Attachment(registeredTypeIdentifiers: ["public.url"]), Attachment(registeredTypeIdentifiers: ["public.plain-text"])])
        let photos = Item(attachments: [
            Attachment(registeredTypeIdentifiers: ["public.jpeg", "public.image"], suggestedName: "IMG_0001.jpg", fileSize: 2_000_000),
            Attachment(registeredTypeIdentifiers: ["public.png"], fileSize: 10),
            Attachment(registeredTypeIdentifiers: ["com.adobe.pdf"], suggestedName: "report.pdf", fileSize: 99_000_000),
            Attachment(registeredTypeIdentifiers: ["public.movie", "com.apple.quicktime-movie"]),
        ])
        let fileProvider: [[String: PropertyListValue]] = [
            ["filename": "notes.txt", "contentType": "public.plain-text", "isUploading": false],
            ["filename": "folder", "typeIdentifier": "public.folder", "userInfo": ["shared": true]],
        ]
        return [
            ActivationItems([]),
            ActivationItems([page]),
            ActivationItems([photos, page, Item()]),
            ActivationItems([Item(attachments: [Attachment(registeredTypeIdentifiers: [])])], fileproviderItems: fileProvider),
        ].map { ActivationContext(items: $0, types: .system) }
    }()
}
