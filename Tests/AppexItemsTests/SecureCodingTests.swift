@testable import AppexItems
import AppexCore
import AppexLocking
import Foundation
import Testing

/// A class of the extension's own that adopts `NSSecureCoding`, which an item provider can't
/// carry to another process.
final class Bookmark: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() { super.init() }
    init?(coder: NSCoder) { super.init() }
    func encode(with coder: NSCoder) {}
}

/// Items go in and come out as Apple's API has them: the secure-coding classes, read with
/// Swift's casts. Written as extension code for Apple's platforms writes them.
@Suite struct SecureCodingTests {
    @Test func eachFoundationClassGoesInAndComesOutAsItself() async throws {
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let cases: [(any NSSecureCoding, String, (any NSSecureCoding) -> Bool)] = [
            ("hello" as NSString, "public.plain-text", { $0.bridged(as: String.self) == "hello" }),
            (URL(string: "https://example.com/a")! as NSURL, "public.url", { $0.bridged(as: URL.self) == URL(string: "https://example.com/a") }),
            (Data([1, 2, 3]) as NSData, "public.data", { $0.bridged(as: Data.self) == Data([1, 2, 3]) }),
            (NSNumber(value: 42), "com.example.number", { $0.bridged(as: Int.self) == 42 }),
            (NSNumber(value: true), "com.example.flag", { $0.bridged(as: Bool.self) == true }),
            (date as NSDate, "com.example.date", { $0.bridged(as: Date.self) == date }),
            (["a", "b"] as NSArray, "com.example.list", { $0.bridged(as: [String].self) == ["a", "b"] }),
        ]
        for (object, typeIdentifier, check) in cases {
            let provider = NSItemProvider(item: object, typeIdentifier: typeIdentifier)
            let loaded = try await provider.loadItem(forTypeIdentifier: typeIdentifier)
            #expect(check(loaded), "\(type(of: object)) came back as \(type(of: loaded)): \(loaded)")
            #expect(loaded is NSObject, "an item is a Foundation object, as on Apple's platforms")
        }
    }

    /// The JavaScript preprocessing results of a Safari action arrive this way, and Apple's
    /// template reads them with `as! [String: Any]`.
    @Test func aDictionaryLoadsAsADictionaryOfStringToAny() async throws {
        let results: NSDictionary = ["title": "Example", "count": 3, "ratio": 0.5, "shared": true, "tags": ["a", "b"]]
        let item = [NSExtensionJavaScriptPreprocessingResultsKeyForTests: results] as NSDictionary
        let provider = NSItemProvider(item: item, typeIdentifier: "com.apple.property-list")
        let loaded = try await provider.loadItem(forTypeIdentifier: "com.apple.property-list")
        let dictionary = try #require(loaded.bridged(as: [String: Any].self))
        let inner = try #require(dictionary[NSExtensionJavaScriptPreprocessingResultsKeyForTests] as? [String: Any])
        #expect(inner["title"] as? String == "Example")
        #expect(inner["count"] as? Int == 3)
        #expect(inner["ratio"] as? Double == 0.5)
        #expect(inner["shared"] as? Bool == true)
        #expect(inner["tags"] as? [String] == ["a", "b"])
        #expect((loaded as? NSDictionary)?.count == 1)
    }

    @Test func theCallbackLoadGivesTheObjectToo() async throws {
        let provider = NSItemProvider(item: ["k": "v"] as NSDictionary, typeIdentifier: "com.apple.property-list")
        let (value, error) = await provider.itemResult("com.apple.property-list")
        #expect(error == nil)
        #expect(value == .propertyList(["k": "v"]))
    }

    @Test func aClassThatCantBeCarriedFailsItsLoadsAndIsNamed() async throws {
        let provider = NSItemProvider(item: Bookmark(), typeIdentifier: "com.example.bookmark")
        #expect(provider.registeredTypeIdentifiers == ["com.example.bookmark"], "registered, as on Apple's platforms")
        let (value, error) = await provider.itemResult("com.example.bookmark")
        #expect(value == nil)
        let failure = try #require(error as? NSItemProviderError)
        #expect(failure.code == .unexpectedValueClassError)
        #expect(failure.localizedDescription.contains("an item of class Bookmark can't be carried"), "\(failure.localizedDescription)")
    }

    @Test func aDictionaryHoldingAClassThatCantBeCarriedSaysWhere() async throws {
        let provider = NSItemProvider(item: ["title": "A page", "mark": Bookmark()] as NSDictionary, typeIdentifier: "com.apple.property-list")
        let (_, error) = await provider.itemResult("com.apple.property-list")
        let reason = (error as? NSItemProviderError)?.reason ?? ""
        #expect(reason.contains("holds a Bookmark at mark"), "\(reason)")
    }

    @Test func aLoadHandlerThatGivesAClassThatCantBeCarriedFailsTheLoad() async throws {
        let provider = NSItemProvider()
        provider.registerItem(forTypeIdentifier: "com.example.bookmark") { completion, _, _ in completion?(Bookmark(), nil) }
        let (value, error) = await provider.itemResult("com.example.bookmark")
        #expect(value == nil)
        #expect((error as? NSItemProviderError)?.code == .unexpectedValueClassError)
        #expect((error as? NSItemProviderError)?.localizedDescription.contains("the load handler for com.example.bookmark gave an item of class Bookmark") == true,
                "\(String(describing: error))")
    }

    @Test func optionsReachTheHandlerAsFoundationValuesAndOnlyPropertyListsTravel() async throws {
        let provider = NSItemProvider()
        let seen = Locked<[String]>([])
        provider.registerItem(forTypeIdentifier: "public.plain-text") { completion, _, options in
            seen.withLock { $0 = (options ?? [:]).keys.compactMap { $0.base as? String }.sorted() }
            completion?("\(options?["width"] as? Int ?? 0)" as NSString, nil)
        }
        let options: [AnyHashable: Any] = ["width": 320, 7: "a number key", "object": Bookmark()]
        #expect(try await provider.loadItem(forTypeIdentifier: "public.plain-text", options: options).bridged(as: String.self) == "320")
        #expect(seen.withLock { $0 } == ["width"])
    }
}

/// The key's value, which AppexKit declares; AppexItems' tests can't import AppexKit.
private let NSExtensionJavaScriptPreprocessingResultsKeyForTests = "NSExtensionJavaScriptPreprocessingResultsKey"
