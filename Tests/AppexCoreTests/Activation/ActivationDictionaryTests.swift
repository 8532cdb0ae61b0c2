import AppexCore
import Testing

/// The dictionary form, evaluated as docs/activation-rules.md says.
@Suite struct ActivationDictionaryTests {
    func rule(_ entries: [String: PropertyListValue]) throws -> ActivationRule {
        try ActivationRule.parse(.dictionary(entries))
    }

    let types = activationTestTypes()

    @Test func absentOrZeroMeansUnsupported() throws {
        let images = try rule(["NSExtensionActivationSupportsImageWithMaxCount": 2, "NSExtensionActivationSupportsMovieWithMaxCount": 0])
        #expect(images.matches(items(["public.jpeg"]), types: types))
        #expect(images.matches(items(["public.jpeg"], ["public.png"]), types: types))
        #expect(!images.matches(items(["public.jpeg"], ["public.png"], ["public.png"]), types: types))  // over the maximum
        #expect(!images.matches(items(["public.mpeg-4"]), types: types))  // movies: 0
        #expect(!images.matches(items(["public.jpeg"], ["public.url"]), types: types))  // an uncovered attachment
        #expect(!images.matches(ActivationItems([]), types: types))
    }

    @Test func eachKind() throws {
        let cases: [(String, [String], Bool)] = [
            ("NSExtensionActivationSupportsImageWithMaxCount", ["public.png"], true),
            ("NSExtensionActivationSupportsMovieWithMaxCount", ["com.apple.quicktime-movie"], true),
            ("NSExtensionActivationSupportsMovieWithMaxCount", ["public.mp3"], false),
            ("NSExtensionActivationSupportsWebURLWithMaxCount", ["public.url"], true),
            ("NSExtensionActivationSupportsWebURLWithMaxCount", ["public.file-url"], false),
            ("NSExtensionActivationSupportsFileWithMaxCount", ["public.file-url"], true),
            ("NSExtensionActivationSupportsFileWithMaxCount", ["com.adobe.pdf"], true),
            ("NSExtensionActivationSupportsFileWithMaxCount", ["public.jpeg"], true),
            ("NSExtensionActivationSupportsFileWithMaxCount", ["public.url"], false),
            ("NSExtensionActivationSupportsWebPageWithMaxCount", ["public.url", "com.apple.property-list"], true),
            ("NSExtensionActivationSupportsWebPageWithMaxCount", ["public.url"], false),
            ("NSExtensionActivationSupportsAttachmentsWithMaxCount", ["org.example.anything"], true),
        ]
        for (key, identifiers, expected) in cases {
            #expect(try rule([key: 1]).matches(items(identifiers), types: types) == expected, "\(key) with \(identifiers)")
        }
    }

    @Test func text() throws {
        let text = try rule(["NSExtensionActivationSupportsText": true])
        #expect(text.matches(items(text: "hello"), types: types))
        #expect(!text.matches(items(text: ""), types: types))
        #expect(text.matches(items(["public.plain-text"]), types: types))
        #expect(text.matches(items(["public.html"], ["public.utf8-plain-text"]), types: types))
        #expect(!text.matches(items(["public.jpeg"], text: "caption"), types: types))
        let urlOnly = try rule(["NSExtensionActivationSupportsWebURLWithMaxCount": 1])
        #expect(urlOnly.matches(items(["public.url"], text: "a caption is never a reason to refuse"), types: types))
        #expect(!urlOnly.matches(items(text: "text alone"), types: types))
    }

    @Test func eachAttachmentCountsOnceTowardTheMostSpecificSupportedKind() throws {
        let rule = try rule(["NSExtensionActivationSupportsImageWithMaxCount": 10, "NSExtensionActivationSupportsFileWithMaxCount": 1])
        #expect(rule.matches(items(["public.jpeg"], ["public.png"], ["public.jpeg"]), types: types))
        #expect(rule.matches(items(["public.jpeg"], ["com.adobe.pdf"]), types: types))
        #expect(!rule.matches(items(["com.adobe.pdf"], ["com.adobe.pdf"]), types: types))
        let filesOnly = try self.rule(["NSExtensionActivationSupportsFileWithMaxCount": 2])
        #expect(!filesOnly.matches(items(["public.jpeg"], ["public.png"], ["public.jpeg"]), types: types))
    }

    @Test func attachmentBounds() throws {
        let bounded = try rule([
            "NSExtensionActivationSupportsAttachmentsWithMinCount": 2,
            "NSExtensionActivationSupportsAttachmentsWithMaxCount": 3,
            "NSExtensionActivationSupportsImageWithMaxCount": 1,
        ])
        #expect(!bounded.matches(items(["public.jpeg"]), types: types))  // under the minimum
        #expect(bounded.matches(items(["public.jpeg"], ["org.example.thing"]), types: types))  // generic attachments accepted
        #expect(!bounded.matches(items(["public.jpeg"], ["public.png"]), types: types))  // images over their maximum
        #expect(!bounded.matches(items(["a.b"], ["a.b"], ["a.b"], ["a.b"]), types: types))  // over the total
    }

    @Test func strictMatchingReadsOnlyTheFirstType() throws {
        let fuzzy = try rule(["NSExtensionActivationSupportsImageWithMaxCount": 1])
        let strict = try rule(["NSExtensionActivationSupportsImageWithMaxCount": 1, "NSExtensionActivationUsesStrictMatching": true,
                               "NSExtensionActivationDictionaryVersion": 2])
        let mixed = items(["public.url", "public.jpeg"])
        #expect(fuzzy.matches(mixed, types: types))
        #expect(!strict.matches(mixed, types: types))
        #expect(strict.matches(items(["public.jpeg", "public.url"]), types: types))
    }

    @Test func valuesAreReadAsFoundationReadsThem() throws {
        let strings = try ActivationDictionary([
            "NSExtensionActivationSupportsImageWithMaxCount": "2", "NSExtensionActivationSupportsText": "YES",
            "NSExtensionActivationSupportsMovieWithMaxCount": .real(100.0), "NSExtensionActivationSupportsFileWithMaxCount": " 12abc",
            "NSExtensionActivationSupportsWebURLWithMaxCount": "$(EXTENSION_ACTIVATION)",
        ])
        #expect(strings.imageMaxCount == 2)
        #expect(strings.supportsText)
        #expect(strings.movieMaxCount == 100)
        #expect(strings.fileMaxCount == 12)
        #expect(strings.webURLMaxCount == 0)
        #expect(try ActivationDictionary(["NSExtensionActivationSupportsText": 1]).supportsText)
        #expect(try ActivationDictionary(["NSExtensionActivationSupportsText": "50"]).supportsText)
        #expect(try !ActivationDictionary(["NSExtensionActivationSupportsText": "no"]).supportsText)
        #expect(try ActivationDictionary([:]).dictionaryVersion == 1)
    }

    @Test func containerValuesAreErrors() throws {
        do {
            _ = try ActivationDictionary(["NSExtensionActivationSupportsImageWithMaxCount": ["1"]])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.key == "NSExtensionActivationSupportsImageWithMaxCount")
            #expect(error.description == "NSExtensionActivationSupportsImageWithMaxCount: holds an array, which is not a count (hint: write an <integer>, such as <integer>1</integer>)")
        }
    }

    @Test func unknownKeysAreKeptAndIgnored() throws {
        let source: PropertyListValue = ["NSExtensionActivationSupportsImage": true, "NSExtensionActivationSupportsImageWithMaxCount": 1]
        let rule = try ActivationRule.parse(source)
        #expect(rule.source == source)
        #expect(rule.matches(items(["public.jpeg"]), types: types))
        #expect(!(try ActivationRule.parse(["NSExtensionActivationSupportsImage": true])).matches(items(["public.jpeg"]), types: types))
    }
}
