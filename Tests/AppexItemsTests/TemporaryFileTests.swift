@testable import AppexItems
import AppexCore
import Foundation
import Testing

/// The file a file load hands over exists while the completion handler runs and is gone
/// once it returns, whatever kind of representation it came from, and nothing is left in
/// the temporary folder.
@Suite struct TemporaryFileTests {
    @Test(arguments: [NSItemProvider.Representation.Kind.data, .file, .item])
    func theFileIsRemovedWhenTheHandlerReturns(kind: NSItemProvider.Representation.Kind) async throws {
        try await withTestFolder { folder in
            let provider = NSItemProvider(temporaryFilesIn: folder)
            switch kind {
            case .data: provider.register(Data("contents".utf8), as: "public.plain-text")
            case .file: provider.register(file: try folder.write("contents", to: "notes.txt"), as: "public.plain-text")
            case .item: provider.registerItem(forTypeIdentifier: "public.plain-text") { completion, _, _ in completion?("contents" as NSString, nil) }
            }
            let before = try folder.temporaryEntries()
            let load = await provider.fileResult("public.plain-text")
            #expect(load.error == nil)
            #expect(load.existedInHandler)
            #expect(load.contents == Data("contents".utf8))
            #expect(await load.isRemoved())
            #expect(try await soon { try folder.temporaryEntries() == before })
        }
    }

    @Test func aFailedLoadLeavesNothingBehind() async throws {
        try await withTestFolder { folder in
            let provider = NSItemProvider(temporaryFilesIn: folder)
            provider.register(file: folder.url.appendingPathComponent("gone.txt"), as: "public.plain-text")
            let load = await provider.fileResult("public.plain-text")
            #expect(load.url == nil)
            #expect(providerError(load.error)?.code == .unavailableCoercionError)
        }
    }

    @Test func aTemporaryFileOutlivesTheProvidersOwnFile() async throws {
        try await withTestFolder { folder in
            let original = try folder.write("draft", to: "draft.txt")
            // A provider that removes its own file as soon as its completion handler returns.
            let provider = NSItemProvider(temporaryFilesIn: folder)
            provider.registerFileRepresentation(forTypeIdentifier: "public.plain-text", visibility: .all) { completion in
                completion(original, false, nil)
                try? FileManager.default.removeItem(at: original)
                return nil
            }
            let text = try await provider.withFileRepresentation(for: .plainText) { url in
                try String(contentsOf: url, encoding: .utf8)
            }
            #expect(text == "draft")
            // The handler removes its file once its completion call returns, on the loading thread.
            #expect(await soon { !FileManager.default.fileExists(atPath: original.path) })
        }
    }

    @Test(arguments: [
        ("Note", "public.plain-text", "Note.txt"),
        ("photo.JPEG", "public.jpeg", "photo.JPEG"),
        ("../Holiday/Beach", "public.jpeg", ".._Holiday_Beach.jpeg"),
        ("..", "public.data", "item"),
    ])
    func theSuggestedNameNamesTheFile(suggestedName: String, typeIdentifier: String, expectedName: String) async throws {
        try await withTestFolder { folder in
            let provider = NSItemProvider(temporaryFilesIn: folder)
            provider.register(Data("bytes".utf8), as: typeIdentifier)
            provider.suggestedName = suggestedName
            let load = await provider.fileResult(typeIdentifier)
            #expect(load.url?.lastPathComponent == expectedName)
            // A name from another process can't climb out of the provider's private folder.
            #expect(load.url?.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL == folder.temporary.standardizedFileURL)
        }
    }
}
