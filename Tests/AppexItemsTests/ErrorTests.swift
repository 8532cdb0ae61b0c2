@testable import AppexItems
import AppexCore
import AppexLocking
import Foundation
import Testing

@Suite struct ErrorTests {
    @Test func aHandlersErrorReachesTheConsumerUnchanged() async throws {
        let provider = NSItemProvider()
        provider.registerDataRepresentation(forTypeIdentifier: "public.jpeg", visibility: .all) { completion in
            completion(nil, HandlerFailure(detail: "camera roll locked"))
            return nil
        }
        provider.registerFileRepresentation(forTypeIdentifier: "com.adobe.pdf", visibility: .all) { completion in
            completion(nil, false, HandlerFailure(detail: "not downloaded"))
            return nil
        }
        provider.registerItem(forTypeIdentifier: "public.url") { completion, _, _ in completion?(nil, HandlerFailure(detail: "offline")) }
        #expect(await provider.dataResult("public.jpeg").1 as? HandlerFailure == HandlerFailure(detail: "camera roll locked"))
        #expect(await provider.fileResult("com.adobe.pdf").error as? HandlerFailure == HandlerFailure(detail: "not downloaded"))
        #expect(await provider.itemResult("public.url").1 as? HandlerFailure == HandlerFailure(detail: "offline"))
    }

    @Test func errorsBridgeToApplesDomainAndCodes() {
        #expect(NSItemProvider.errorDomain == "NSItemProviderErrorDomain")
        #expect(NSItemProvider.ErrorCode.unknownError.rawValue == -1)
        #expect(NSItemProvider.ErrorCode.itemUnavailableError.rawValue == -1000)
        #expect(NSItemProvider.ErrorCode.unexpectedValueClassError.rawValue == -1100)
        #expect(NSItemProvider.ErrorCode.unavailableCoercionError.rawValue == -1200)
        let error = NSItemProviderError(
            .itemUnavailableError, typeIdentifier: "public.png", registeredTypeIdentifiers: ["public.jpeg"], reason: "none conforms")
        let bridged = error as NSError
        #expect(bridged.domain == "NSItemProviderErrorDomain")
        #expect(bridged.code == -1000)
        #expect(bridged.localizedDescription.contains("public.png"))
        #expect(bridged.localizedDescription.contains("public.jpeg"))
    }

    @Test func aHandlerThatGivesNothingIsItemUnavailable() async throws {
        let provider = NSItemProvider()
        provider.registerDataRepresentation(forTypeIdentifier: "public.jpeg", visibility: .all) { completion in
            completion(nil, nil)
            return nil
        }
        let failure = try #require(providerError(await provider.dataResult("public.image").1))
        #expect(failure.code == .itemUnavailableError)
        #expect(failure.typeIdentifier == "public.image")
        #expect(failure.reason.contains("neither a value nor an error"))
    }

    @Test func aFileHandlerThatGivesAWebURLIsAnUnexpectedValue() async throws {
        let provider = NSItemProvider()
        provider.registerFileRepresentation(forTypeIdentifier: "com.adobe.pdf", visibility: .all) { completion in
            completion(URL(string: "https://example.com/a.pdf"), false, nil)
            return nil
        }
        let failure = try #require(providerError(await provider.dataResult("com.adobe.pdf").1))
        #expect(failure.code == .unexpectedValueClassError)
        #expect(failure.reason.contains("https://example.com/a.pdf"))
    }

    @Test func aMissingFileIsAnUnavailableCoercionThatSaysWhichFile() async throws {
        let folder = try TestFolder()
        let file = try folder.write("x", to: "gone.pdf")
        let provider = try #require(NSItemProvider(contentsOf: file))
        folder.remove()
        let failure = try #require(providerError(await provider.dataResult("com.adobe.pdf").1))
        #expect(failure.code == .unavailableCoercionError)
        #expect(failure.reason.contains(file.path))
        #expect(failure.underlyingError != nil)
    }

    @Test func aSecondCompletionIsIgnored() async throws {
        let provider = NSItemProvider()
        provider.registerDataRepresentation(forTypeIdentifier: "public.jpeg", visibility: .all) { completion in
            completion(Data("first".utf8), nil)
            completion(Data("second".utf8), nil)
            completion(nil, HandlerFailure(detail: "third"))
            return nil
        }
        let calls = Counter()
        let data = await withCheckedContinuation { continuation in
            provider.loadDataRepresentation(forTypeIdentifier: "public.jpeg") { data, _ in
                if calls.increment() == 1 { continuation.resume(returning: data) }
            }
        }
        #expect(data == Data("first".utf8))
        #expect(calls.value == 1)
    }
}

/// A thread-safe count of calls.
final class Counter: Sendable {
    private let count = Locked(0)

    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}
