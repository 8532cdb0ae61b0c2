public import AppexKit
import AppexWire
public import Foundation

/// The principal class of a Share extension that uses the standard compose sheet: Apple's
/// `SLComposeServiceViewController`.
///
/// ```swift
/// final class ShareViewController: SLComposeServiceViewController {
///     override func isContentValid() -> Bool {
///         charactersRemaining = NSNumber(value: 280 - contentText.count)
///         return !contentText.isEmpty && contentText.count <= 280
///     }
///     override func didSelectPost() {
///         save(contentText)
///         super.didSelectPost()   // completes the request
///     }
///     override func configurationItems() -> [Any]! { [folderItem] }
/// }
/// ```
///
/// The host draws the sheet from the state this class sends it: the text, the placeholder,
/// the characters remaining, whether Post is enabled, the configuration items, and any list
/// an item pushed (`ComposeSheet`). The user's edits come back, and the methods below run on
/// the main thread as they would on Apple's systems. The text starts as the host's items'
/// content text or, without any, their text attachments; every attachment stays available
/// through ``extensionContext``'s input items.
///
/// Each request gets its own controller, made with `init()`, as each presentation of a sheet
/// does on Apple's systems. Like Apple's view controllers, it is isolated to the main actor,
/// and so is its conformance to `NSExtensionRequestHandling`. The view's life runs as UIKit's
/// does (``ExtensionViewController``): `viewDidLoad()` and `viewWillAppear(_:)` before the
/// host first shows the sheet, `viewDidAppear(_:)` and ``presentationAnimationDidFinish()``
/// after; `viewWillDisappear(_:)` and `viewDidDisappear(_:)` when the user posts or cancels,
/// before ``didSelectPost()`` or ``didSelectCancel()``, as Apple's run after the sheet's
/// dismissal.
@MainActor
open class SLComposeServiceViewController: ExtensionViewController, @MainActor NSExtensionRequestHandling {
    /// The text in the sheet, as the user has edited it.
    /// Implicitly unwrapped, as Apple declares it; it is never nil here.
    public private(set) var contentText: String! = ""
    /// The sheet's title; nil shows the extension's display name.
    public var title: String? { didSet { setNeedsSheetUpdate() } }
    /// Shown, dimmed, while the text is empty.
    public var placeholder: String? { didSet { setNeedsSheetUpdate() } }
    /// Set it to show a character count; a negative count is shown as over the limit.
    public var charactersRemaining: NSNumber? { didSet { setNeedsSheetUpdate() } }

    private var items: [SLComposeSheetConfigurationItem] = []
    private var lists: [ComposeOptionList] = []
    private var contentIsValid = true
    /// Whether the host has the sheet: changes before that go in the first one.
    private var isPresented = false
    private var updateScheduled = false

    /// Makes the controller; the request's ``beginRequest(with:)`` presents it.
    public override init() {
        super.init()
    }

    // MARK: For subclasses to override

    // `viewDidLoad()` runs with ``contentText`` set from the host's items: set
    // ``placeholder`` or ``title`` there, as Apple's view controllers do.

    /// Whether the text and attachments may be posted, which enables Post. Called after each
    /// change the user makes to the text, and by ``validateContent()``. The default is true.
    open func isContentValid() -> Bool { true }

    /// The user chose Post, and the sheet is gone. The default completes the request with no items; an override
    /// posts ``contentText`` and the attachments, then calls `super` or completes the
    /// request itself.
    open func didSelectPost() {
        extensionContext?.completeRequest(returningItems: nil, completionHandler: nil)
    }

    /// The user chose Cancel, and the sheet is gone. The default cancels the request with `NSUserCancelledError`.
    open func didSelectCancel() {
        extensionContext?.cancelRequest(withError: CocoaError(.userCancelled, userInfo: [NSLocalizedDescriptionKey: "The user cancelled the post."]))
    }

    /// The rows under the text: `SLComposeSheetConfigurationItem`s, asked for when the sheet
    /// is presented and by ``reloadConfigurationItems()``. The default is none.
    open func configurationItems() -> [Any]! { [] }

    /// The host shows the sheet.
    open func presentationAnimationDidFinish() {}

    // MARK: For subclasses to call

    /// Dismisses the sheet as the user's Cancel would: ``didSelectCancel()`` runs, and with
    /// its default the request is cancelled. For a failure the user can't go on from.
    public func cancel() {
        disappear()
        didSelectCancel()
    }

    /// Asks ``isContentValid()`` again and updates Post: call it when something that
    /// validation depends on changes, other than the text.
    public func validateContent() {
        contentIsValid = isContentValid()
        setNeedsSheetUpdate()
    }

    /// Asks ``configurationItems()`` again and redraws the rows.
    public func reloadConfigurationItems() {
        items = (configurationItems() ?? []).compactMap { $0 as? SLComposeSheetConfigurationItem }
        for item in items { item.owner = self }
        setNeedsSheetUpdate()
    }

    /// Shows `list` over the sheet, for the user to pick from; its `didSelect` runs with the pick.
    public func pushConfigurationViewController(_ list: ComposeOptionList) {
        list.owner = self
        lists.append(list)
        setNeedsSheetUpdate()
    }

    /// Takes the list on top away, back to the one below or the sheet.
    public func popConfigurationViewController() {
        _ = lists.popLast()
        setNeedsSheetUpdate()
    }

    // MARK: The request

    /// Presents the sheet for `context`'s request. An override must call `super`, as on
    /// Apple's systems.
    open func beginRequest(with context: NSExtensionContext) {
        extensionContext = context
        guard context.pointChannel.isAvailable else {
            context.cancelRequest(withError: ComposeSheetUnavailable(message: "this host speaks a protocol without point messages, so it can't show the compose sheet"))
            return
        }
        Task { @MainActor in
            contentText = await Self.startingText(of: context.extensionItems)
            appear {
                reloadConfigurationItems()
                contentIsValid = isContentValid()
                context.pointChannel.setHandler { [self] message in receive(message) }
                isPresented = true
                sendSheet(answering: 0)
            }
            presentationAnimationDidFinish()
        }
    }

    /// The host's items' content text, or else their text attachments' text. A text file
    /// stays an attachment: it could be any size, and a sheet travels in one frame.
    private static func startingText(of items: [NSExtensionItem]) async -> String {
        let contentTexts = items.compactMap { $0.attributedContentText?.string }.filter { !$0.isEmpty }
        if !contentTexts.isEmpty { return contentTexts.joined(separator: "\n") }
        var texts: [String] = []
        for provider in items.flatMap({ $0.attachments ?? [] })
        where provider.representations().contains(where: { $0.kind != .file && $0.conforms(to: UTType.plainText.identifier) }) {
            if let data = try? await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier) {
                texts.append(String(decoding: data, as: UTF8.self))
            }
        }
        return texts.joined(separator: "\n")
    }

    private func receive(_ message: PointMessage) {
        let event: ComposeMessage
        do throws(ComposeMessageError) {
            event = try ComposeMessage(name: message.name, body: message.body)
        } catch {
            ExtensionLog.write("the host sent a compose message that can't be read, so the sheet is sent again unchanged: \(error)")
            return sendSheet(answering: message.sequence)
        }
        switch event {
        case .text(let text):
            contentText = text
            contentIsValid = isContentValid()
        case .tap(let index):
            if items.indices.contains(index) {
                items[index].tapHandler?()
            } else {
                ExtensionLog.write("the host tapped configuration item \(index) of \(items.count); ignored")
            }
        case .pick(let index):
            if let list = lists.last, list.options.indices.contains(index) {
                list.didSelect?(index)
            } else {
                ExtensionLog.write("the host picked option \(index), which the list on top doesn't have; ignored")
            }
        case .back:
            popConfigurationViewController()
        case .post:
            disappear()
            return didSelectPost()
        case .cancel:
            disappear()
            return didSelectCancel()
        case .sheet:
            ExtensionLog.write("the host sent a sheet, which only an extension sends; ignored")
        }
        sendSheet(answering: message.sequence)
    }

    /// Sends the sheet soon, once, with every change made meanwhile.
    func setNeedsSheetUpdate() {
        guard isPresented, !updateScheduled else { return }
        updateScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.updateScheduled else { return }
                self.sendSheet(answering: 0)
            }
        }
    }

    private func sendSheet(answering sequence: UInt64) {
        updateScheduled = false
        guard let context = extensionContext, context.pointChannel.isOpen else { return }
        let sheet = ComposeSheet(title: title, contentText: contentText, placeholder: placeholder, charactersRemaining: charactersRemaining?.intValue,
                                 isContentValid: contentIsValid, configurationItems: items.map(\.state), optionList: lists.last?.state,
                                 answering: sequence)
        let message = ComposeMessage.sheet(sheet)
        do throws(PointChannelError) {
            try context.pointChannel.send(message.name, body: message.body)
        } catch {
            // The host can't show a sheet it doesn't get (too large for a frame, or the session
            // gone): end the request now rather than leave the host waiting for one.
            ExtensionLog.write("the compose sheet could not be sent, so the request is cancelled: \(error)")
            context.cancelRequest(withError: ComposeSheetUnavailable(message: "the compose sheet could not be sent: \(error)"))
        }
    }
}

/// The host can't show the compose sheet: the request's cancellation error.
public struct ComposeSheetUnavailable: LocalizedError {
    public var message: String
    public var errorDescription: String? { message }
}
