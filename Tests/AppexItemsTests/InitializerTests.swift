@testable import AppexItems
import AppexCore
import Foundation
import Testing

@Suite struct InitializerTests {
    @Test(arguments: [
        ("photo.jpg", "public.jpeg"), ("Report.PDF", "com.adobe.pdf"), ("notes.txt", "public.plain-text"),
        ("archive.zzqq", "public.data"), ("README", "public.data"),
    ])
    func contentsOfAFileTakesItsTypeFromTheExtension(name: String, expectedType: String) async throws {
        try await withTestFolder { folder in
            let provider = try #require(NSItemProvider(contentsOf: try folder.write("contents", to: name)))
            #expect(provider.registeredTypeIdentifiers == [expectedType])
            #expect(provider.representations().map(\.kind) == [.file])
            #expect(provider.suggestedName == (name as NSString).deletingPathExtension)
            #expect(try await provider.loadDataRepresentation(forTypeIdentifier: expectedType) == Data("contents".utf8))
        }
    }

    @Test func contentsOfAFolderIsAFolderAndAMissingFileIsNil() async throws {
        try await withTestFolder { folder in
            #expect(NSItemProvider(contentsOf: folder.url)?.registeredTypeIdentifiers == ["public.folder"])
            #expect(NSItemProvider(contentsOf: folder.url.appendingPathComponent("missing.jpg")) == nil)
            #expect(NSItemProvider(contentsOf: URL(string: "https://example.com/photo.jpg")!) == nil)
        }
    }

    @Test func aStringObjectIsPlainText() async throws {
        let provider = NSItemProvider(object: "Hello")
        #expect(provider.registeredTypeIdentifiers == ["public.utf8-plain-text", "public.plain-text"])
        #expect(provider.representations().map(\.kind) == [.item, .item])
        #expect(try await provider.loadItem(forTypeIdentifier: "public.plain-text").bridged(as: String.self) == "Hello")
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.text") == Data("Hello".utf8))
    }

    @Test func aURLObjectIsAURL() async throws {
        let web = NSItemProvider(object: URL(string: "https://example.com")!)
        #expect(web.registeredTypeIdentifiers == ["public.url"])
        #expect(try await web.loadItem(forTypeIdentifier: "public.url").bridged(as: URL.self) == URL(string: "https://example.com"))

        let file = NSItemProvider(object: URL(fileURLWithPath: "/srv/a.txt"))
        #expect(file.registeredTypeIdentifiers == ["public.file-url", "public.url"])
        #expect(try await file.loadItem(forTypeIdentifier: "public.url").bridged(as: URL.self) == URL(fileURLWithPath: "/srv/a.txt"))
    }

    @Test func aDataObjectIsData() async throws {
        let provider = NSItemProvider(object: Data([1, 2, 3]))
        #expect(provider.registeredTypeIdentifiers == ["public.data"])
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.data") == Data([1, 2, 3]))
        #expect(try await provider.loadItem(forTypeIdentifier: "public.data").bridged(as: Data.self) == Data([1, 2, 3]))
    }

    @Test func anItemIsRegisteredUnderItsTypeOrItsKindsType() async throws {
        let named = NSItemProvider(item: "<b>hi</b>" as NSString, typeIdentifier: "public.html")
        #expect(named.registeredTypeIdentifiers == ["public.html"])
        #expect(try await named.loadItem(forTypeIdentifier: "public.html").bridged(as: String.self) == "<b>hi</b>")

        #expect(NSItemProvider(item: "text" as NSString, typeIdentifier: nil).registeredTypeIdentifiers == ["public.utf8-plain-text"])
        #expect(NSItemProvider(item: 42 as NSNumber, typeIdentifier: nil).registeredTypeIdentifiers == ["com.apple.property-list"])
        #expect(NSItemProvider(item: nil, typeIdentifier: "public.jpeg").registeredTypeIdentifiers.isEmpty)
    }

    @Test func itemValuesMapToSwiftValues() {
        let values: [any NSItemProviderValue] = [
            "s", URL(string: "https://a.b")!, Data([1]), 7, 2.5, true, Date(timeIntervalSince1970: 0),
            PropertyListValue.array([1, 2]), PropertyListValue.string("plist text"),
        ]
        let roundTripped = values.map { $0.itemValue.value.itemValue }
        #expect(roundTripped == values.map(\.itemValue))
        #expect(PropertyListValue.string("plist text").itemValue == .string("plist text"))
        #expect(7.itemValue.value as? Int == 7)
        #expect(PropertyListValue.array([1]).itemValue.value as? PropertyListValue == [1])
    }
}
