@testable import AppexItems
import AppexCore
import Foundation
import Testing

@Suite struct AsyncLoadingTests {
    @Test func dataLoadsAwait() async throws {
        let provider = NSItemProvider()
        provider.registerDataRepresentation(for: .png) { completion in
            completion(Data("png".utf8), nil)
            return nil
        }
        #expect(try await provider.loadDataRepresentation(for: .image) == Data("png".utf8))
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.png") == Data("png".utf8))
    }

    @Test func itemLoadsAwaitAndPassOptions() async throws {
        let provider = NSItemProvider()
        provider.registerItem(forTypeIdentifier: "public.plain-text") { completion, expectedClass, options in
            #expect(expectedClass == nil)
            completion?((options?["size"] as? Int ?? 0) as any NSSecureCoding, nil)
        }
        #expect(try await provider.loadItem(forTypeIdentifier: "public.plain-text", options: ["size": 64]).bridged(as: Int.self) == 64)
        #expect(try await provider.loadItem(forTypeIdentifier: "public.plain-text").bridged(as: Int.self) == 0)
    }

    @Test func aFileLivesForTheBody() async throws {
        try await withTestFolder { folder in
            let provider = NSItemProvider(temporaryFilesIn: folder)
            provider.register(Data("%PDF".utf8), as: "com.adobe.pdf")
            let url = try await provider.withFileRepresentation(for: .pdf) { url in
                let contents = try Data(contentsOf: url)
                let entries = try folder.temporaryEntries()
                #expect(contents == Data("%PDF".utf8))
                #expect(entries.count == 1)
                return url
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func aFileIsRemovedWhenTheBodyThrows() async throws {
        try await withTestFolder { folder in
            let provider = NSItemProvider(temporaryFilesIn: folder)
            provider.register(Data("%PDF".utf8), as: "com.adobe.pdf")
            await #expect(throws: HandlerFailure(detail: "body")) {
                try await provider.withFileRepresentation(for: .pdf) { _ in throw HandlerFailure(detail: "body") }
            }
        }
    }

    @Test func asyncLoadsThrowTheProvidersErrors() async throws {
        let provider = NSItemProvider()
        provider.registerDataRepresentation(for: .png) { completion in
            completion(nil, HandlerFailure(detail: "no pixels"))
            return nil
        }
        await #expect(throws: HandlerFailure(detail: "no pixels")) { try await provider.loadDataRepresentation(for: .png) }
        await #expect(throws: HandlerFailure(detail: "no pixels")) { try await provider.loadItem(forTypeIdentifier: "public.png") }
        await #expect(throws: HandlerFailure(detail: "no pixels")) {
            try await provider.withFileRepresentation(for: .png) { _ in Issue.record("the body must not run") }
        }
        await #expect(throws: NSItemProviderError.self) { try await provider.loadDataRepresentation(for: .pdf) }
    }
}
