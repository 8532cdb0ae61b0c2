import AppexItems
import ArgumentParser
import Foundation

/// The content a terminal host sends, as `appex share` and `appex action` take it: files,
/// text and URLs, in one `NSExtensionItem`.
struct ContentOptions: ParsableArguments {
    @Argument(help: "Files to send. The extension gets each as a descriptor, never a copy.", completion: .file())
    var files: [String] = []

    @Option(help: "Text to send.")
    var text: String?

    @Option(help: "A URL to send; repeat for more.")
    var url: [String] = []

    /// The one item: the text as its content text and as a text attachment, as Apple's hosts
    /// send text, then each URL and each file as an attachment.
    func items() throws -> [NSExtensionItem] {
        try ContentItems.make(text: text, urls: url, files: files)
    }

    /// What is sent, for people: "2 files, a text and a URL".
    var summary: String {
        var parts: [String] = []
        if !files.isEmpty { parts.append(files.count == 1 ? "a file" : "\(files.count) files") }
        if text != nil { parts.append("a text") }
        if !url.isEmpty { parts.append(url.count == 1 ? "a URL" : "\(url.count) URLs") }
        guard let last = parts.popLast() else { return "nothing" }
        return parts.isEmpty ? last : parts.joined(separator: ", ") + " and " + last
    }

    mutating func validate() throws {
        guard !files.isEmpty || text != nil || !url.isEmpty else {
            throw ValidationError("Give something to send: files, --text or --url.")
        }
    }
}

/// The item a terminal host sends, from text, URLs and files.
enum ContentItems {
    static func make(text: String?, urls: [String], files: [String], fileOption: String = "") throws -> [NSExtensionItem] {
        let item = NSExtensionItem()
        var attachments: [NSItemProvider] = []
        if let text {
            item.attributedContentText = NSAttributedString(string: text)
            attachments.append(NSItemProvider(object: text))
        }
        for string in urls {
            guard let url = URL(string: string), url.scheme != nil else {
                throw CommandFailure(status: CommandFailure.trouble, "error: --url \(string) is not an absolute URL; write it with its scheme, such as https://example.com")
            }
            attachments.append(NSItemProvider(object: url))
        }
        for path in files {
            guard let provider = NSItemProvider(contentsOf: URL(fileURLWithPath: path)) else {
                throw CommandFailure(status: CommandFailure.trouble, "error: \(fileOption)\(path) is not a readable file")
            }
            attachments.append(provider)
        }
        if !attachments.isEmpty { item.attachments = attachments }
        return [item]
    }
}
