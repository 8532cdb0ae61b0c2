import AppexKit
import AppexShare
import Foundation

/// The principal class of the compose faults: a Share extension's compose sheet that
/// behaves, or misbehaves, as ``Fault/current`` says.
final class ComposeFault: SLComposeServiceViewController {
    static let limit = 20
    private var folder = "Inbox"
    private lazy var folderItem: SLComposeSheetConfigurationItem = {
        let item = SLComposeSheetConfigurationItem()!
        item.title = "Folder"
        item.value = folder
        item.tapHandler = { [unowned self] in
            let folders = ["Inbox", "Ideas"]
            let list = ComposeOptionList(title: "Folder", options: folders, selected: folders.firstIndex(of: folder))
            list.didSelect = { [unowned self] index in
                folder = folders[index]
                folderItem.value = folder
                popConfigurationViewController()
            }
            pushConfigurationViewController(list)
        }
        return item
    }()

    override func isContentValid() -> Bool {
        if Fault.current == .composeHangsValidating, contentText.contains("!") {
            while true { sleep(60) }
        }
        if Fault.current == .composeGivesUp, contentText == "give up" {
            cancel()
        }
        charactersRemaining = NSNumber(value: Self.limit - contentText.count)
        return !contentText.isEmpty && contentText.count <= Self.limit
    }

    override func configurationItems() -> [Any]! {
        guard Fault.current == .composeTooManyItems else { return [folderItem] }
        return (1...40).compactMap { index in
            let item = SLComposeSheetConfigurationItem()
            item?.title = "Item \(index)"
            return item
        }
    }

    override func viewDidLoad() {
        guard Fault.current == .composeDrivesTheTerminal else { return }
        let hostile = "Evil\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[H\r\nappex: all clear"
        title = hostile
        placeholder = hostile
        folder = hostile
    }

    override func presentationAnimationDidFinish() {
        guard Fault.current == .composeMalformedSheet, let context = extensionContext else { return }
        _ = try? context.pointChannel.send("sheet", body: Array("{not json".utf8))
    }

    override func didSelectPost() {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: "posted \"\(contentText!)\" to \(folder)")
        extensionContext?.completeRequest(returningItems: [item], completionHandler: nil)
    }
}
