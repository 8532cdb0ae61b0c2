import AppexHost
import AppexItems
import AppexTesting
import Foundation
import Testing

/// A provider's preview image crosses processes as Apple's does: an extension's
/// `loadPreviewImage` runs the host's `previewImageHandler` when it asks, and the host loads
/// the preview of an item the extension returned.
@Suite(.serialized, .timeLimit(.minutes(2))) final class PreviewImageAcrossProcessesTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
    }

    @Test func theExtensionLoadsTheHostsPreviewAndTheHostLoadsTheExtensions() async throws {
        try await world.startDaemon()
        try await world.install("attempts")
        let provider = NSItemProvider(object: "preview" as NSString)
        let asked = Counter()
        provider.previewImageHandler = { completion, _, _ in
            asked.increment()
            completion?(Data("the host's preview".utf8) as NSData, nil)
        }
        let outcome = try await world.extension("attempts").outcome([item(provider)])
        let answer = try #require(outcome.items?.first)
        #expect(answer.attributedContentText?.string == "preview the host's preview", "\(outcome)")
        #expect(asked.value == 1, "run once, when the extension asked")
        let returned = try #require(answer.attachments?.first)
        let image: Data? = await withCheckedContinuation { continuation in
            returned.loadPreviewImage(options: nil) { image, _ in continuation.resume(returning: (image as? NSData).map { $0 as Data }) }
        }
        #expect(image == Data("the extension's preview".utf8))
    }
}
