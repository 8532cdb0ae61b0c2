// The Checksum extension: an Action that replaces the files it is given with their SHA-256
// checksums, as a `sha256sum` file.
import AppexKit
import Foundation
import TextToolsChecksum

/// Reads each file attachment through the descriptor the host hands over (the sandbox gives
/// it no path to the file), in blocks, and returns one item whose attachment is a text file of
/// `HASH  NAME` lines, named `NAME.sha256` for one file and `SHA256SUMS` for several.
class ChecksumAction: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        Task {
            do {
                var sums: [(hash: String, name: String)] = []
                for provider in (context.inputItems as! [NSExtensionItem]).flatMap({ $0.attachments ?? [] }) {
                    guard let identifier = provider.registeredTypeIdentifiers.first(where: { UTType($0)?.conforms(to: .data) == true }),
                          let type = UTType(identifier) else { continue }
                    sums.append(try await provider.withFileRepresentation(for: type) { url in
                        (try FileChecksum.sha256(of: url), url.lastPathComponent)
                    })
                }
                guard let first = sums.first else {
                    throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "Checksum was given no file to read."])
                }
                let text = sums.map { FileChecksum.line($0.hash, name: $0.name) }.joined(separator: "\n") + "\n"
                let attachment = NSItemProvider(item: Data(text.utf8) as NSData, typeIdentifier: UTType.plainText.identifier)
                attachment.suggestedName = sums.count == 1 ? "\(first.name).sha256" : "SHA256SUMS"
                let result = NSExtensionItem()
                result.attributedContentText = NSAttributedString(string: text.trimmingCharacters(in: .newlines))
                result.attachments = [attachment]
                await context.completeRequest(returningItems: [result])
            } catch {
                context.cancelRequest(withError: error)
            }
        }
    }
}
