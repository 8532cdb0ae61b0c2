@testable import AppexItems
import AppexCore
import AppexLocking
import Foundation
import Testing

/// A contact card, as an extension's own class that writes and reads itself as a vCard.
final class ContactCard: NSObject, NSItemProviderWriting, NSItemProviderReading {
    let name: String
    init(name: String) { self.name = name }

    static var writableTypeIdentifiersForItemProvider: [String] { ["public.vcard", "public.utf8-plain-text"] }
    static var readableTypeIdentifiersForItemProvider: [String] { ["public.vcard"] }

    func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String) -> NSItemProviderRepresentationVisibility {
        typeIdentifier == "public.vcard" ? .ownProcess : .all
    }

    func loadData(withTypeIdentifier typeIdentifier: String,
                  forItemProviderCompletionHandler completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress? {
        let text = typeIdentifier == "public.vcard" ? "BEGIN:VCARD\nFN:\(name)\nEND:VCARD\n" : name
        completionHandler(Data(text.utf8), nil)
        return nil
    }

    static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> Self {
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("FN:") }
        guard let line else { throw CocoaError(.coderReadCorrupt) }
        return Self(name: String(line.dropFirst(3)))
    }
}

/// A note whose class keeps its own format in the process, as Apple's type-level
/// `itemProviderVisibilityForRepresentation(withTypeIdentifier:)` says.
final class PrivateNote: NSObject, NSItemProviderWriting {
    static var writableTypeIdentifiersForItemProvider: [String] { ["com.example.private-note", "public.utf8-plain-text"] }

    static func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String) -> NSItemProviderRepresentationVisibility {
        typeIdentifier == "com.example.private-note" ? .ownProcess : .all
    }

    func loadData(withTypeIdentifier typeIdentifier: String,
                  forItemProviderCompletionHandler completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress? {
        completionHandler(Data("note".utf8), nil)
        return nil
    }
}

/// `init(object:)`, `registerObject` and `loadObject(ofClass:)`, written as extension code
/// for Apple's platforms writes them.
@Suite struct ObjectTests {
    /// Loads `T` with the callback form, as Apple's API has only that one.
    func load<T: _ObjectiveCBridgeable & SendableMetatype>(_ type: T.Type, from provider: NSItemProvider) async -> Result<T, any Error>
    where T._ObjectiveCType: NSItemProviderReading, T: Sendable {
        await withCheckedContinuation { continuation in
            provider.loadObject(ofClass: type) { object, error in
                continuation.resume(returning: object.map { .success($0) } ?? .failure(error ?? CocoaError(.featureUnsupported)))
            }
        }
    }

    @Test func textGoesInAsAnNSStringAndComesOutAsAString() async throws {
        let provider = NSItemProvider(object: "Hello" as NSString)
        #expect(provider.registeredTypeIdentifiers == ["public.utf8-plain-text", "public.plain-text"])
        #expect(provider.canLoadObject(ofClass: String.self))
        #expect(provider.canLoadObject(ofClass: NSString.self))
        #expect(!provider.canLoadObject(ofClass: URL.self))
        #expect(try await load(String.self, from: provider).get() == "Hello")
        #expect(try await provider.loadItem(forTypeIdentifier: "public.plain-text").bridged(as: String.self) == "Hello", "an item, as Apple registers it")
    }

    @Test func aURLGoesInAsAnNSURLAndComesOutAsAURL() async throws {
        let link = URL(string: "https://example.com/a?b=c")!
        let provider = NSItemProvider(object: link as NSURL)
        #expect(provider.registeredTypeIdentifiers == ["public.url"])
        #expect(provider.canLoadObject(ofClass: URL.self))
        #expect(try await load(URL.self, from: provider).get() == link)
        let file = NSItemProvider(object: URL(fileURLWithPath: "/srv/notes.txt") as NSURL)
        #expect(file.registeredTypeIdentifiers == ["public.file-url", "public.url"])
        #expect(try await load(URL.self, from: file).get() == URL(fileURLWithPath: "/srv/notes.txt"))
    }

    @Test func aTextFileLoadsAsItsText() async throws {
        try await withTestFolder { folder in
            let provider = try #require(NSItemProvider(contentsOf: try folder.write("from a file", to: "notes.txt")))
            #expect(try await load(String.self, from: provider).get() == "from a file")
        }
    }

    @Test func anObjectOfTheExtensionsOwnWritesEachTypeWhenLoadedAndIsReadBack() async throws {
        let provider = NSItemProvider(object: ContactCard(name: "Ada"))
        #expect(provider.registeredTypeIdentifiers == ["public.vcard", "public.utf8-plain-text"])
        #expect(provider.representations().map(\.visibility) == [.ownProcess, .all], "the object's own visibility is kept")
        #expect(provider.representations(crossingProcess: true).map(\.typeIdentifier) == ["public.utf8-plain-text"])
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.plain-text") == Data("Ada".utf8))
        #expect(provider.canLoadObject(ofClass: ContactCard.self))
        let name: String? = await withCheckedContinuation { continuation in
            provider.loadObject(ofClass: ContactCard.self) { object, _ in
                continuation.resume(returning: (object as? ContactCard)?.name)
            }
        }
        #expect(name == "Ada")
        #expect(try await load(String.self, from: provider).get() == "Ada", "the plain text it writes reads as a String")
    }

    @Test func theClassesOwnVisibilityKeepsARepresentationInTheProcess() {
        let object = NSItemProvider(object: PrivateNote())
        #expect(object.representations(crossingProcess: true).map(\.typeIdentifier) == ["public.utf8-plain-text"])
        let byClass = NSItemProvider()
        byClass.registerObject(ofClass: PrivateNote.self, visibility: .all) { completion in
            completion(PrivateNote(), nil)
            return nil
        }
        #expect(byClass.representations().map(\.visibility) == [.ownProcess, .all])
    }

    @Test func anObjectRegisteredByClassIsMadeOnDemandForEachLoad() async throws {
        let provider = NSItemProvider()
        let made = Locked(0)
        provider.registerObject(ofClass: ContactCard.self, visibility: .all) { completion in
            made.withLock { $0 += 1 }
            completion(ContactCard(name: "Grace"), nil)
            return nil
        }
        #expect(provider.registeredTypeIdentifiers == ["public.vcard", "public.utf8-plain-text"])
        #expect(made.withLock { $0 } == 0, "nothing is made until a load")
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.utf8-plain-text") == Data("Grace".utf8))
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.vcard") == Data("BEGIN:VCARD\nFN:Grace\nEND:VCARD\n".utf8))
        #expect(made.withLock { $0 } == 2)
    }

    @Test func aBridgedTypeRegisteredByClassIsMadeOnDemand() async throws {
        let provider = NSItemProvider()
        provider.registerObject(ofClass: String.self, visibility: .all) { completion in
            completion("made later", nil)
            return nil
        }
        #expect(provider.registeredTypeIdentifiers == ["public.utf8-plain-text", "public.plain-text"])
        #expect(try await load(String.self, from: provider).get() == "made later")
    }

    /// As Apple documents for `registerObject(_:visibility:)`: a type already registered keeps
    /// its representation.
    @Test func registeringAnObjectKeepsTypesAlreadyRegistered() async throws {
        let provider = NSItemProvider(object: "first" as NSString)
        provider.registerObject("second" as NSString, visibility: .all)
        provider.registerObject(ContactCard(name: "Ada"), visibility: .all)
        #expect(provider.registeredTypeIdentifiers == ["public.utf8-plain-text", "public.plain-text", "public.vcard"])
        #expect(try await load(String.self, from: provider).get() == "first")
    }

    @Test func aClassThatReadsNoRegisteredTypeFailsAndSaysWhatItReads() async throws {
        let provider = NSItemProvider(object: "Hello" as NSString)
        let error = try #require(await load(URL.self, from: provider).failure as? NSItemProviderError)
        #expect(error.code == .itemUnavailableError)
        #expect(error.reason.contains("NSURL reads public.file-url, public.url, and no registered type conforms to any of them"), "\(error.reason)")
    }

    @Test func dataThatIsNotTheClasssFailsTheLoadAndSaysWhy() async throws {
        let provider = NSItemProvider()
        provider.registerDataRepresentation(forTypeIdentifier: "public.url", visibility: .all) { completion in
            completion(Data("not a url".utf8), nil)
            return nil
        }
        let error = await load(URL.self, from: provider).failure
        #expect("\(String(describing: error))".contains("NSURL could not be made from the public.url data: \"not a url\" is not an absolute URL"), "\(String(describing: error))")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
