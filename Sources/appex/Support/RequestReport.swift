import AppexCore
import AppexHost
import AppexItems
import AppexWire
import Foundation

/// How a request ended, as `appex run` and the demo print it: for people, or as JSON.
struct RequestReport: Encodable {
    /// One returned attachment: its types, and its content as text, a URL or a saved file.
    struct Attachment: Encodable {
        var types: [String]
        var text: String?
        var url: String?
        var file: String?
        var error: String?
    }

    /// One returned item.
    struct Item: Encodable {
        var title: String?
        var contentText: String?
        var userInfo: [String: PropertyListValue]?
        var attachments: [Attachment]
    }

    var extensionIdentifier: String
    /// completed, cancelled or interrupted.
    var outcome: String
    var items: [Item]?
    var error: String?
    var interruption: String?
    var reason: String?
    var milliseconds: Double

    /// The report of `outcome`, loading every returned attachment: text and URLs inline,
    /// anything else saved into `folder`.
    static func make(_ identifier: String, _ outcome: ExtensionRequestOutcome, took elapsed: Duration, savingFilesIn folder: URL) async -> RequestReport {
        var report = RequestReport(extensionIdentifier: identifier, outcome: "", milliseconds: elapsed.fractionalMilliseconds)
        switch outcome {
        case .completed(let items):
            report.outcome = "completed"
            var described: [Item] = []
            for item in items {
                var userInfo = item.propertyListUserInfo ?? [:]
                userInfo[NSExtensionItemAttributedTitleKey] = nil
                userInfo[NSExtensionItemAttributedContentTextKey] = nil
                var attachments: [Attachment] = []
                for provider in item.attachments ?? [] {
                    attachments.append(await describe(provider, savingIn: folder))
                }
                described.append(Item(title: item.attributedTitle?.string, contentText: item.attributedContentText?.string,
                                      userInfo: userInfo.isEmpty ? nil : userInfo, attachments: attachments))
            }
            report.items = described
        case .cancelled(let error):
            report.outcome = "cancelled"
            report.error = ErrorText.describe(error)
        case .interrupted(let interruption):
            report.outcome = "interrupted"
            report.reason = "\(interruption.reason)"
            report.interruption = interruption.message
        }
        return report
    }

    private static func describe(_ provider: NSItemProvider, savingIn folder: URL) async -> Attachment {
        var attachment = Attachment(types: provider.registeredTypeIdentifiers)
        do {
            if provider.hasItemConformingToTypeIdentifier(UTType.url.identifier),
               let url = try await provider.loadItem(forTypeIdentifier: UTType.url.identifier) as? NSURL as URL? {
                attachment.url = url.absoluteString
            } else if provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) {
                let data = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)
                attachment.text = String(decoding: data, as: UTF8.self)
            } else if let identifier = provider.registeredTypeIdentifiers.first, let type = UTType(identifier) {
                attachment.file = try await provider.withFileRepresentation(for: type) { url in try save(url, in: folder) }
            }
        } catch {
            attachment.error = ErrorText.describe(error)
        }
        return attachment
    }

    /// A property-list value in one line: text quoted, arrays in brackets, dictionaries in braces.
    static func text(of value: PropertyListValue) -> String {
        switch value {
        case .string(let text): "\"\(text)\""
        case .integer(let number): "\(number)"
        case .real(let number): "\(number)"
        case .boolean(let flag): "\(flag)"
        case .date(let date): date.formatted(.iso8601)
        case .data(let data): "<\(data.count) bytes>"
        case .array(let values): "[" + values.map(text(of:)).joined(separator: ", ") + "]"
        case .dictionary(let entries): "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \(text(of: $0.value))" }.joined(separator: ", ") + "}"
        }
    }

    /// Copies `url` into `folder` under its name, numbered if the name is taken.
    private static func save(_ url: URL, in folder: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var destination = folder.appendingPathComponent(url.lastPathComponent)
        var counter = 2
        while FileManager.default.fileExists(atPath: destination.path) {
            destination = folder.appendingPathComponent("\(counter)-\(url.lastPathComponent)")
            counter += 1
        }
        try FileManager.default.copyItem(at: url, to: destination)
        return destination.path
    }

    /// The report for people, one fact per line, indented by `indent`. What the extension
    /// chose (its error, its items) is written with its control characters as escapes.
    func lines(indent: String = "") -> [String] {
        factLines(indent: indent).map { $0.escapingControlCharacters }
    }

    private func factLines(indent: String) -> [String] {
        var lines = ["\(indent)\(outcome) in \(String(format: "%.1f", milliseconds)) ms"]
        if let error { lines.append("\(indent)  error: \(error)") }
        if let interruption { lines.append("\(indent)  \(reason ?? "reason"): \(interruption)") }
        for (index, item) in (items ?? []).enumerated() {
            lines.append("\(indent)  item \(index + 1):")
            if let title = item.title { lines.append("\(indent)    title: \(title)") }
            if let text = item.contentText { lines.append("\(indent)    text: \(text)") }
            for (key, value) in (item.userInfo ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("\(indent)    \(key): \(Self.text(of: value))")
            }
            for attachment in item.attachments {
                let content = attachment.text.map { "\"\($0)\"" } ?? attachment.url ?? attachment.file.map { "saved to \($0)" }
                    ?? attachment.error.map { "could not load: \($0)" } ?? "(no content)"
                lines.append("\(indent)    attachment [\(attachment.types.joined(separator: ", "))]: \(content)")
            }
        }
        return lines
    }
}
