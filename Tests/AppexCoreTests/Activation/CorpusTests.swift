import AppexCore
import Foundation
import Testing

/// Every real rule in ../shared/corpus parses or loads, or fails with the diagnostic its known
/// mistake deserves. The expected failures are listed by rule text so a regression is caught.
@Suite struct CorpusTests {
    /// The corpus rules that must fail, keyed by their exact text, with the code they fail with.
    static let expectedFailures: [String: (code: ActivationRuleError.Code, line: Int, column: Int)] = [
        "NSExtensionActivationSupportsText": (.keyNameAsPredicate, 1, 1),
        #"SUBQUERY (extensionItems, $item, SUBQUERY ($item.attachments, $attachment, ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO \"public.image\").@count > 0).@count > 0"#:
            (.escapedQuotes, 1, 134),
    ]

    @Test func everyRuleParsesOrFailsAsExpected() throws {
        guard let rules = try corpusRules() else { return }
        #expect(rules.count == 232)
        var failed: Set<String> = []
        for rule in rules {
            let expected = rule.text.flatMap { Self.expectedFailures[$0] }
            do {
                let parsed = try ActivationRule.parse(rule.rule)
                #expect(expected == nil, "corpus line \(rule.line) (\(rule.repo)) should fail with \(expected!.code) but parsed")
                #expect(parsed.source == rule.rule)
                switch (parsed, rule.kind) {
                case (.predicate, "predicate"), (.dictionary, "dictionary"): break
                default: Issue.record("corpus line \(rule.line) parsed as the wrong kind")
                }
            } catch {
                guard let expected else {
                    Issue.record("corpus line \(rule.line) (\(rule.repo)) failed: \(error)")
                    continue
                }
                failed.insert(rule.text ?? "")
                #expect(error.code == expected.code, "corpus line \(rule.line)")
                #expect(error.line == expected.line && error.column == expected.column, "corpus line \(rule.line): \(error)")
            }
        }
        #expect(failed == Set(Self.expectedFailures.keys))
    }

    /// The corpus rule from `repo` whose text contains `fragment`.
    func rule(_ repo: String, containing fragment: String = "") throws -> ActivationRule? {
        guard let rules = try corpusRules() else { return nil }
        let found = try #require(rules.first { rule in
            rule.repo == repo && (fragment.isEmpty || (rule.text ?? "\(rule.rule)").contains(fragment))
        }, "no corpus rule from \(repo) containing \(fragment)")
        return try ActivationRule.parse(found.rule)
    }

    @Test func shaarliMatchesWebURLsOnly() throws {
        guard let rule = try rule("mro/ShaarliOS", containing: "public.file-url") else { return }
        let types = activationTestTypes()
        #expect(rule.matches(items(["public.url"]), types: types))
        #expect(rule.matches(items(["public.plain-text"], ["public.url"]), types: types))
        #expect(!rule.matches(items(["public.file-url"]), types: types))
        #expect(!rule.matches(items(["public.jpeg"]), types: types))
        #expect(!rule.matches(ActivationItems([]), types: types))
    }

    @Test func wallabagAcceptsExactlyOneMatchingAttachment() throws {
        guard let rule = try rule("wallabag/ios-app") else { return }
        let types = activationTestTypes()
        #expect(rule.matches(items(["com.adobe.pdf"]), types: types))
        #expect(rule.matches(items(["public.png"]), types: types))
        #expect(rule.matches(items(["public.url"], ["public.plain-text"]), types: types))
        #expect(!rule.matches(items(["public.url"], ["public.jpeg"]), types: types))  // two match; @count == 1 fails
        #expect(!rule.matches(items(["public.mp3"]), types: types))
    }

    @Test func allAttachmentsMustConform() throws {
        // SUBQUERY(...).@count == $extensionItem.attachments.@count: every attachment must be a PDF.
        guard let rule = try rule("wallabag/ios-app").map({ _ in try ActivationRule(predicateFormat: """
            SUBQUERY (
                extensionItems, $extensionItem,
                SUBQUERY ($extensionItem.attachments, $attachment,
                    ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "com.adobe.pdf"
                ).@count == $extensionItem.attachments.@count
            ).@count == 1
            """) }) else { return }
        let types = activationTestTypes()
        #expect(rule.matches(items(["com.adobe.pdf"], ["com.adobe.pdf", "public.data"]), types: types))
        #expect(!rule.matches(items(["com.adobe.pdf"], ["public.jpeg"]), types: types))
    }

    @Test func fileProviderRuleReadsUserInfo() throws {
        guard let rule = try rule("cryptomator/ios", containing: "isDownloaded") else { return }
        let types = activationTestTypes()
        let downloaded = ActivationItems([], fileproviderItems: [["userInfo": ["isDownloaded": true, "isUploading": false]]])
        let uploading = ActivationItems([], fileproviderItems: [["userInfo": ["isDownloaded": true, "isUploading": true]]])
        #expect(rule.matches(downloaded, types: types))
        #expect(!rule.matches(uploading, types: types))
        #expect(!rule.matches(ActivationItems([]), types: types))
    }

    @Test func dictionaryRulesFromTheCorpus() throws {
        guard let rules = try corpusRules() else { return }
        let types = activationTestTypes()
        // {"NSExtensionActivationSupportsWebURLWithMaxCount": "1"}: a string count, read as 1.
        let webURL = try ActivationRule.parse(try #require(rules.first {
            $0.rule == .dictionary(["NSExtensionActivationSupportsWebURLWithMaxCount": "1"])
        }).rule)
        #expect(webURL.matches(items(["public.url"]), types: types))
        #expect(!webURL.matches(items(["public.url"], ["public.url"]), types: types))
        #expect(!webURL.matches(items(["public.jpeg"]), types: types))
        // The Xcode action template's all-zero dictionary matches nothing.
        let zero = try ActivationRule.parse(try #require(rules.first {
            $0.rule["NSExtensionActivationSupportsFileWithMaxCount"] == 0 && $0.rule["NSExtensionActivationSupportsText"] == false
                && $0.rule.dictionaryValue?.count == 4
        }).rule)
        for example in [items(["public.url"]), items(["public.jpeg"]), items(["public.plain-text"], text: "hi"), items(text: "hi")] {
            #expect(!zero.matches(example, types: types))
        }
        // The placeholder count "$(EXTENSION_ACTIVATION)" reads as 0, as integerValue does.
        let placeholder = try ActivationRule.parse(.dictionary(["NSExtensionActivationSupportsWebPageWithMaxCount": "$(EXTENSION_ACTIVATION)"]))
        #expect(!placeholder.matches(items(["public.url", "com.apple.property-list"]), types: types))
    }
}

/// The whole Info.plists of the corpus: every activation rule in them is read from the plist itself.
@Suite struct CorpusPlistTests {
    @Test func everyRuleInEveryInfoPlist() throws {
        guard let directory = corpusDirectory() else {
            print("note: ../shared/corpus not found beside the package; skipping plist checks")
            return
        }
        let folder = directory.appendingPathComponent("plists")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".plist") }.sorted()
        var rules = 0
        for name in names {
            // Info.plists run through Xcode's preprocessor (#ifdef) are not plists until preprocessed.
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let plist: PropertyListValue
            do {
                plist = try PropertyListValue(decoding: data)
            } catch {
                #expect(String(decoding: data, as: UTF8.self).contains("#if"), "\(name) does not decode: \(error)")
                continue
            }
            guard let attributes = plist["NSExtension"]?["NSExtensionAttributes"] else { continue }
            for key in ["NSExtensionActivationRule", "NSExtensionFileProviderActionActivationRule"] {
                guard let value = attributes[key] else { continue }
                rules += 1
                do {
                    let rule = try ActivationRule.parse(value)
                    _ = ActivationRuleLint.check(rule, types: activationTestTypes())
                } catch {
                    #expect([.keyNameAsPredicate, .escapedQuotes].contains(error.code), "\(name): \(error)")
                }
            }
        }
        #expect(rules > 30)
    }
}
