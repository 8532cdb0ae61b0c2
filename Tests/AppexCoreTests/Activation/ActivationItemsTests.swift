import AppexCore
import Foundation
import Testing

/// Items as the CLI's ITEMS.json describes them, and as key paths see them.
@Suite struct ActivationItemsTests {
    @Test func decodesATopLevelArray() throws {
        let json = #"[{"attributedContentText": "hi", "attachments": [{"registeredTypeIdentifiers": ["public.jpeg"]}]}]"#
        let items = try ActivationItems(jsonData: Data(json.utf8))
        #expect(items.extensionItems.count == 1)
        #expect(items.extensionItems[0].attributedContentText == "hi")
        #expect(items.extensionItems[0].attachments[0].registeredTypeIdentifiers == ["public.jpeg"])
    }

    @Test func decodesAnObjectWithUserInfoAndMetadata() throws {
        let json = """
            {"extensionItems": [{"attributedTitle": "T", "userInfo": {"n": 1, "r": 1.5, "b": true, "s": "x", "a": [1, "two"], "d": {"k": false}},
              "attachments": [{"registeredTypeIdentifiers": ["public.file-url", "com.adobe.pdf"], "suggestedName": "a.pdf", "fileSize": 2048}]},
              {}],
             "fileproviderItems": [{"filename": "x", "userInfo": {"isFolder": true}}]}
            """
        let items = try ActivationItems(jsonData: Data(json.utf8))
        let info = try #require(items.extensionItems[0].userInfo)
        #expect(info["n"] == .integer(1))
        #expect(info["r"] == .real(1.5))
        #expect(info["b"] == .boolean(true))
        #expect(info["a"] == .array([.integer(1), .string("two")]))
        #expect(info["d"] == .dictionary(["k": .boolean(false)]))
        #expect(items.extensionItems[0].attachments[0].fileSize == 2048)
        #expect(items.extensionItems[1].attachments.isEmpty)
        #expect(items.fileproviderItems.count == 1)
        let types = activationTestTypes()
        #expect(try ActivationRule(predicateFormat: "ANY extensionItems.userInfo.b == YES").matches(items, types: types))
        #expect(try ActivationRule(predicateFormat: #"SUBQUERY(extensionItems, $i, SUBQUERY($i.attachments, $a, $a.fileSize < 4096 AND $a.suggestedName ENDSWITH[c] ".PDF").@count == 1).@count == 1"#).matches(items, types: types))
        #expect(try ActivationRule(predicateFormat: "ANY extensionItems.attributedTitle.length == 1").matches(items, types: types))
        #expect(try ActivationRule(predicateFormat: "ANY fileproviderItems.userInfo.isFolder == YES").matches(items, types: types))
    }

    @Test func roundTripsThroughJSON() throws {
        let original = ActivationItems([
            ActivationItems.Item(attributedContentText: "c", userInfo: ["k": ["x": .real(1.25)]], attachments: [
                ActivationItems.Attachment(registeredTypeIdentifiers: ["public.png"], suggestedName: "p.png", fileSize: 3)
            ])
        ])
        let data = try JSONEncoder().encode(original)
        #expect(try ActivationItems(jsonData: data) == original)
    }

    @Test(arguments: [
        ("", "the items file is empty; expected a JSON array of items"),
        ("42", "expected a JSON array of items, or an object with \"extensionItems\""),
        (#"[{"attachments": [{"registeredTypeIdentifiers": "public.jpeg"}]}]"#, "[0].attachments[0].registeredTypeIdentifiers: expected"),
        (#"[{"attachments": [{}]}]"#, "[0].attachments[0].registeredTypeIdentifiers: required key \"registeredTypeIdentifiers\" is missing"),
        (#"[{"userInfo": {"k": null}}]"#, "[0].userInfo.k: null is not a property-list value"),
        ("[{", "the top level:"),
    ])
    func clearErrors(json: String, message: String) throws {
        do {
            _ = try ActivationItems(jsonData: Data(json.utf8))
            Issue.record("expected an error for \(json)")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func contextPrecomputesConformance() throws {
        let context = ActivationContext(items: items(["public.jpeg"], ["public.url"]), types: activationTestTypes())
        let rule = try ActivationRule(predicateFormat: "ANY extensionItems.attachments.registeredTypeIdentifiers.@unionOfArrays UTI-CONFORMS-TO 'public.image'")
        _ = rule
        let imageRule = try ActivationRule(predicateFormat: "SUBQUERY(extensionItems, $i, ANY $i.attachments.registeredTypeIdentifiers.@unionOfArrays UTI-CONFORMS-TO 'public.image').@count == 1")
        #expect(imageRule.matches(context))
        #expect(try !ActivationRule(predicateFormat: "ANY extensionItems.attachments UTI-CONFORMS-TO 'public.image'").matches(context))
    }
}

@Test func wholeRealsComeBackAsIntegers() throws {
    // JSON does not tell 100.0 from 100; both decode as integers (documented on PropertyListValue+Codable).
    let value: PropertyListValue = ["r": .real(100), "f": .real(0.5), "i": 100, "b": true]
    let decoded = try JSONDecoder().decode(PropertyListValue.self, from: try JSONEncoder().encode(value))
    #expect(decoded == ["r": 100, "f": .real(0.5), "i": 100, "b": true])
}

@Test func fileProviderTypesConform() throws {
    let items = ActivationItems([], fileproviderItems: [["filename": "a.jpg", "contentType": "public.jpeg"], ["filename": "b", "contentType": "public.folder"]])
    let types = activationTestTypes()
    #expect(try ActivationRule(predicateFormat: #"ANY fileproviderItems.contentType UTI-CONFORMS-TO "public.image""#).matches(items, types: types))
    #expect(try !ActivationRule(predicateFormat: #"ALL fileproviderItems.contentType UTI-CONFORMS-TO "public.image""#).matches(items, types: types))
    #expect(try ActivationRule(predicateFormat: #"SUBQUERY(fileproviderItems, $f, $f.filename LIKE "*.jpg").@count == 1"#).matches(items, types: types))
}

@Test func oneContextServesManyRules() throws {
    let context = ActivationContext(items: items(["public.jpeg"], ["public.png"], text: "look"), types: activationTestTypes())
    let rules: [ActivationRule] = [
        try ActivationRule.parse(["NSExtensionActivationSupportsImageWithMaxCount": 2]),
        try ActivationRule.parse(["NSExtensionActivationSupportsImageWithMaxCount": 1]),
        try ActivationRule(predicateFormat: "SUBQUERY(extensionItems, $i, $i.attachments.@count == 2 AND $i.attributedContentText ==[c] 'LOOK').@count == 1"),
        try ActivationRule(predicateFormat: "FALSEPREDICATE"),
    ]
    #expect(rules.map { $0.matches(context) } == [true, false, true, false])
}
