import AppexItems
import ArgumentParser
import Foundation

/// The content a terminal host sends, as `appex share` and `appex action` take it: files,
/// text and URLs, in one `NSExtensionItem`.
struct ContentOptions: ParsableArguments {
    @Argument(help: "Files to send; - sends standard input. The extension gets each as a descriptor, never a copy.", completion: .file())
    var files: [String] = []

    @Option(help: "Text to send; - reads it from standard input.")
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
        try ContentItems.validate(text: text, files: files)
    }
}

/// The item a terminal host sends, from text, URLs and files.
enum ContentItems {
    /// Throws unless standard input is taken once at most: as the text, or as one file.
    static func validate(text: String?, files: [String]) throws {
        guard files.count(where: { $0 == CommandInput.standardInput }) + (text == CommandInput.standardInput ? 1 : 0) <= 1 else {
            throw ValidationError("Standard input can be read once: give - as the text or as one file, not both.")
        }
    }

    static func make(text: String?, urls: [String], files: [String], fileOption: String = "") throws -> [NSExtensionItem] {
        let item = NSExtensionItem()
        var attachments: [NSItemProvider] = []
        if var text {
            if text == CommandInput.standardInput { text = try CommandInput.text(option: "--text") }
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
            if path == CommandInput.standardInput {
                attachments.append(try CommandInput.file())
                continue
            }
            guard let provider = NSItemProvider(contentsOf: URL(fileURLWithPath: path)) else {
                throw CommandFailure(status: CommandFailure.trouble, "error: \(fileOption)\(path) does not exist")
            }
            attachments.append(provider)
        }
        if !attachments.isEmpty { item.attachments = attachments }
        return [item]
    }
}
