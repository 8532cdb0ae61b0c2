@testable import AppexItems
import AppexLocking
import Foundation
import Testing

/// `previewImageHandler` and `loadPreviewImage(options:completionHandler:)`, as Apple's: the
/// handler runs when the preview is asked for, with the options given, and a provider without
/// one says so.
struct PreviewImageTests {
    func loadPreview(_ provider: NSItemProvider, options: [AnyHashable: Any]! = [:]) async -> (Data?, (any Error)?) {
        await withCheckedContinuation { continuation in
            provider.loadPreviewImage(options: options) { image, error in continuation.resume(returning: ((image as? NSData).map { $0 as Data }, error)) }
        }
    }

    @Test func theHandlerRunsWhenThePreviewIsAskedForWithTheOptionsGiven() async {
        let provider = NSItemProvider(object: "a trip" as NSString)
        let asked = Locked<[String]>([])
        provider.previewImageHandler = { completion, _, options in
            asked.withLock { $0.append(options?[NSItemProviderPreferredImageSizeKey] as? String ?? "none") }
            completion?(Data("thumbnail".utf8) as NSData, nil)
        }
        #expect(asked.withLock { $0 }.isEmpty, "nothing runs until the preview is asked for")
        let (image, error) = await loadPreview(provider, options: [NSItemProviderPreferredImageSizeKey: "64x64"])
        #expect(image == Data("thumbnail".utf8) && error == nil)
        #expect(asked.withLock { $0 } == ["64x64"])
        #expect(provider.registeredTypeIdentifiers == ["public.utf8-plain-text", "public.plain-text"], "the preview is no representation")
    }

    @Test func aProviderWithoutAPreviewSaysSo() async throws {
        let (image, error) = await loadPreview(NSItemProvider(object: "no picture" as NSString), options: nil)
        #expect(image == nil)
        let refusal = try #require(error.map { $0 as NSError })
        #expect(refusal.domain == NSItemProvider.errorDomain && refusal.code == NSItemProvider.ErrorCode.itemUnavailableError.rawValue)
        #expect(refusal.localizedDescription.contains("previewImageHandler"), "\(refusal)")
    }
}
