// The PhotosShare extension: adds the images and movies it is given to an album in its container.
import AppexKit
import Foundation

/// Copies each image or movie attachment into `Album/` under the extension's home (its
/// container), keeping the file's name.
class AlbumShareHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        Task {
            do {
                let album = FileManager.default.extensionContainerURL.appendingPathComponent("Album", isDirectory: true)
                try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
                var added: [String] = []
                for provider in (context.inputItems as! [NSExtensionItem]).flatMap({ $0.attachments ?? [] }) {
                    guard let type = [UTType.image, UTType.movie].first(where: { provider.hasItemConformingToTypeIdentifier($0.identifier) }) else { continue }
                    let saved = try await provider.withFileRepresentation(for: type) { url in
                        let destination = album.appendingPathComponent(url.lastPathComponent)
                        try? FileManager.default.removeItem(at: destination)
                        try FileManager.default.copyItem(at: url, to: destination)
                        return destination.path
                    }
                    added.append(saved)
                }
                let receipt = NSExtensionItem()
                receipt.attributedContentText = NSAttributedString(string: "Added \(added.count) item(s) to the album")
                receipt.userInfo?["savedFiles"] = added
                await context.completeRequest(returningItems: [receipt])
            } catch {
                context.cancelRequest(withError: error)
            }
        }
    }
}
