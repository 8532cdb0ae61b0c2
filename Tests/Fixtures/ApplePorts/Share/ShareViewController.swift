import AppexKit
import Foundation
import Social

// A Share extension in the shape of Xcode's template, with a placeholder, a character
// count, an account row and a link read from the attachments.
class ShareViewController: SLComposeServiceViewController {
    let limit = 280
    var account = "Personal"
    var link: URL?

    override func viewDidLoad() {
        super.viewDidLoad()
        placeholder = "Say something"
        for item in extensionContext?.inputItems as? [NSExtensionItem] ?? [] {
            for provider in item.attachments ?? [] where provider.canLoadObject(ofClass: URL.self) {
                _ = provider.loadObject(ofClass: URL.self) { url, _ in
                    guard let url else { return }
                    DispatchQueue.main.async { MainActor.assumeIsolated { self.link = url } }
                }
            }
        }
    }

    override func isContentValid() -> Bool {
        let count = contentText.count
        charactersRemaining = NSNumber(value: limit - count)
        return count > 0 && count <= limit
    }

    override func didSelectPost() {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: contentText)
        if let link {
            item.attachments = [NSItemProvider(object: link as NSURL)]
        }
        self.extensionContext!.completeRequest(returningItems: [item], completionHandler: nil)
    }

    override func configurationItems() -> [Any]! {
        let accountItem = SLComposeSheetConfigurationItem()!
        accountItem.title = "Account"
        accountItem.value = account
        accountItem.tapHandler = {
            self.account = self.account == "Personal" ? "Work" : "Personal"
            self.reloadConfigurationItems()
        }
        return [accountItem]
    }
}
