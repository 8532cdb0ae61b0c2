// The NotesShare extension: the standard compose sheet, whose post files the text, the text
// files and the links it was given as a note in the Notes app group, where the Notes app and
// its widget read it. From a browser, its preprocessing file (Notes.js) hands it the page's
// title and selection too.
import AppexKit
import Foundation
import NotificationCenter
import Social

/// The compose sheet of "Add to Notes": the text to file, at most 500 characters, and the
/// folder to file it in, picked from a list. Text files shared come after the text, whole;
/// with a file the text may be left empty. Post saves the note, one file per post, in
/// `Shared Notes/` of the group container, in a coordinated write; then counts the notes and
/// names the last in the group's shared defaults, which the app reads with `notes list`.
/// Shared from a web page, the note starts with the page's title and the text selected
/// there, which Notes.js collected, and the text may be left empty.
class ShareViewController: SLComposeServiceViewController {
    /// What Notes.js found in a web page.
    struct WebPage: Sendable {
        var title: String
        var selection: String
    }

    static let group = "group.com.example.notes"
    /// The Latest Note widget, which lists what this extension files.
    static let widget = "com.example.notes.widget"
    static let limit = 500
    static let folders = ["Inbox", "Ideas", "Work"]

    private var folder = "Inbox"
    /// The web page a browser shared, once its preprocessing results are read.
    private var webPage: WebPage?
    private lazy var folderItem: SLComposeSheetConfigurationItem = {
        let item = SLComposeSheetConfigurationItem()!
        item.title = "Folder"
        item.value = folder
        item.tapHandler = { [unowned self] in pickFolder() }
        return item
    }()

    override func viewDidLoad() {
        super.viewDidLoad()
        placeholder = "Write a note"
        let items = extensionContext?.inputItems as? [NSExtensionItem] ?? []
        Task {
            webPage = await Self.webPage(in: items)
            if let webPage { placeholder = "Add a note to “\(webPage.title)”" }
            validateContent()
        }
    }

    override func isContentValid() -> Bool {
        let count = contentText.count
        charactersRemaining = NSNumber(value: Self.limit - count)
        return count <= Self.limit && (!contentText.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !textFiles.isEmpty || webPage != nil)
    }

    /// The page's title and selection, from the results of Notes.js a browser sends under
    /// `NSExtensionJavaScriptPreprocessingResultsKey`; nil when the items are not a web page.
    static func webPage(in items: [NSExtensionItem]) async -> WebPage? {
        let providers = items.flatMap { $0.attachments ?? [] }
        guard let provider = providers.first(where: { $0.hasItemConformingToTypeIdentifier(UTType.propertyList.identifier) }),
              let list = try? await provider.loadItem(forTypeIdentifier: UTType.propertyList.identifier) as? NSDictionary,
              let results = list[NSExtensionJavaScriptPreprocessingResultsKey] as? NSDictionary
        else { return nil }
        let text = { (key: String) in ((results[key] as? String) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        return WebPage(title: text("title"), selection: text("selection"))
    }

    /// The plain-text files among the attachments, which the sheet's text doesn't hold.
    private var textFiles: [NSItemProvider] {
        (extensionContext?.inputItems as? [NSExtensionItem] ?? []).flatMap { $0.attachments ?? [] }.filter { provider in
            provider.representations().contains { $0.kind == .file && $0.conforms(to: UTType.plainText.identifier) }
        }
    }

    /// The folder row, starting at the folder of the last post.
    override func configurationItems() -> [Any]! {
        if let last = UserDefaults(suiteName: Self.group)?.string(forKey: "lastSharedFolder"), Self.folders.contains(last) {
            folder = last
            folderItem.value = last
        }
        return [folderItem]
    }

    private func pickFolder() {
        let list = ComposeOptionList(title: "Folder", options: Self.folders, selected: Self.folders.firstIndex(of: folder))
        list.didSelect = { [unowned self] index in
            folder = Self.folders[index]
            folderItem.value = folder
            popConfigurationViewController()
        }
        pushConfigurationViewController(list)
    }

    override func didSelectPost() {
        guard let context = extensionContext else { return }
        let text: String = contentText
        let folder = folder
        let files = textFiles
        let page = webPage
        Task {
            do {
                let receipt = try await Self.file(text, page: page, files: files, in: folder, with: context)
                await context.completeRequest(returningItems: [receipt])
            } catch {
                context.cancelRequest(withError: error)
            }
        }
    }

    /// Saves the note and returns the receipt the host shows.
    private static func file(_ text: String, page: WebPage?, files: [NSItemProvider], in folder: String, with context: NSExtensionContext) async throws -> NSExtensionItem {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group),
              let defaults = UserDefaults(suiteName: group)
        else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: "NotesShare has no container for \(group)"])
        }
        var lines = [page?.title, page?.selection].compactMap { $0 }.filter { !$0.isEmpty }
        if !text.isEmpty { lines.append(text) }
        for provider in files {
            // Read through the descriptor the host handed over: the file is never copied.
            let data = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)
            lines.append(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines))
        }
        for provider in (context.inputItems as! [NSExtensionItem]).flatMap({ $0.attachments ?? [] }) where provider.hasItemConformingToTypeIdentifier(UTType.url.identifier) {
            if let url = try await provider.loadItem(forTypeIdentifier: UTType.url.identifier) as? NSURL as URL?, !url.isFileURL { lines.append(url.absoluteString) }
        }
        let note = lines.joined(separator: "\n")
        let notes = container.appendingPathComponent("Shared Notes", isDirectory: true)
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        let file = notes.appendingPathComponent("\(folder)-\(context.requestIdentifier.uuidString.prefix(8)).txt")
        try write(note, to: file)
        defaults.set(note.split(separator: "\n").first.map(String.init) ?? "", forKey: "lastSharedNote")
        defaults.set(folder, forKey: "lastSharedFolder")
        // Two posts at the same moment, from two hosts, could count one: GroupDefaults'
        // update(forKey:_:) counts in one step against every process, where that matters.
        let total = defaults.integer(forKey: "sharedNoteCount") + 1
        defaults.set(total, forKey: "sharedNoteCount")
        // The Latest Note widget shows again if `notes clear` hid it.
        NCWidgetController.widgetController().setHasContent(true, forWidgetWithBundleIdentifier: widget)
        let receipt = NSExtensionItem()
        receipt.attributedContentText = NSAttributedString(string: "Saved to \(folder) in \(group); \(total) shared so far")
        receipt.userInfo?["savedFiles"] = [file.path]
        return receipt
    }

    /// Writes `note` to `file` in a coordinated write, replacing it whole, so the app never
    /// reads half of it.
    private static func write(_ note: String, to file: URL) throws {
        var coordinationError: NSError?
        var writeError: (any Error)?
        NSFileCoordinator().coordinate(writingItemAt: file, options: .forReplacing, error: &coordinationError) { url in
            do { try Data(note.utf8).write(to: url, options: .atomic) } catch { writeError = error }
        }
        if let error = coordinationError ?? writeError { throw error }
    }
}
