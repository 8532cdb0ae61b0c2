import AppexKit
import Foundation
import Social

// A Share extension in the shape of Xcode's template, with a placeholder, a character
// count and an account row; Post loads the shared link and sends it on with the text, and
// uploads the text in a background session, as Apple's "Performing Uploads and Downloads"
// does, and posts it itself before it completes, when the app has said where, answering the
// server's demand for a password as Apple's "Handling an authentication challenge" does.
// It keeps the view's life, as it ran, in the group's defaults.
class ShareViewController: SLComposeServiceViewController {
    let limit = 280
    var account = "Personal"

    override func viewDidLoad() {
        super.viewDidLoad()
        placeholder = "Say something"
        ShareViewController.record("viewDidLoad")
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        ShareViewController.record("viewWillAppear")
    }

    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        ShareViewController.record("viewDidAppear")
    }

    override func presentationAnimationDidFinish() {
        super.presentationAnimationDidFinish()
        ShareViewController.record("presentationAnimationDidFinish")
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        ShareViewController.record("viewWillDisappear")
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        ShareViewController.record("viewDidDisappear")
    }

    static func record(_ call: String) {
        let shared = UserDefaults(suiteName: "group.com.example.faults")
        shared?.set((shared?.stringArray(forKey: "shareLifecycle") ?? []) + [call], forKey: "shareLifecycle")
    }

    override func isContentValid() -> Bool {
        let count = contentText.count
        charactersRemaining = NSNumber(value: limit - count)
        return count > 0 && count <= limit
    }

    override func didSelectPost() {
        ShareViewController.record("didSelectPost")
        let text: String = contentText
        upload(text)
        let context = self.extensionContext!
        let items = context.inputItems as? [NSExtensionItem] ?? []
        guard let provider = items.flatMap({ $0.attachments ?? [] }).first(where: { $0.canLoadObject(ofClass: URL.self) }) else {
            return ShareViewController.post(text, link: nil, in: context)
        }
        _ = provider.loadObject(ofClass: URL.self) { url, _ in
            ShareViewController.post(text, link: url, in: context)
        }
    }

    func upload(_ text: String) {
        let groupIdentifier = "group.com.example.faults"
        guard let target = UserDefaults(suiteName: groupIdentifier)?.string(forKey: "uploadURL").flatMap(URL.init(string:)),
              let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: groupIdentifier) else {
            return
        }
        let file = container.appendingPathComponent("post.txt")
        do {
            try text.write(to: file, atomically: true, encoding: .utf8)
        } catch {
            return ShareViewController.record("upload: \(error)")
        }
        let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.ports.share.uploads")
        configuration.sharedContainerIdentifier = groupIdentifier
        let session = URLSession(configuration: configuration)
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let task = session.uploadTask(with: request, fromFile: file)
        task.resume()
    }

    nonisolated static func post(_ text: String, link: URL?, in context: NSExtensionContext) {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: text)
        if let link {
            item.attachments = [NSItemProvider(object: link as NSURL)]
        }
        let shared = UserDefaults(suiteName: "group.com.example.faults")
        guard let endpoint = shared?.string(forKey: "postURL").flatMap(URL.init(string:)) else {
            return context.completeRequest(returningItems: [item], completionHandler: nil)
        }
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("text/plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
        request.httpBody = text.data(using: .utf8)
        let session = URLSession(configuration: .default, delegate: PostCredentials(), delegateQueue: nil)
        let task = session.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let answer = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
            UserDefaults(suiteName: "group.com.example.faults")?.set(error.map { "failed: \($0.localizedDescription)" } ?? "\(status) \(answer)",
                                                                     forKey: "posted")
            context.completeRequest(returningItems: [item], completionHandler: nil)
        }
        task.resume()
        session.finishTasksAndInvalidate()
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

/// Answers the server's demand for a password with the one the app saved in the group.
final class PostCredentials: NSObject, URLSessionTaskDelegate {
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let shared = UserDefaults(suiteName: "group.com.example.faults")
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic, challenge.previousFailureCount == 0,
              let user = shared?.string(forKey: "postUser"), let password = shared?.string(forKey: "postPassword") else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        completionHandler(.useCredential, URLCredential(user: user, password: password, persistence: .forSession))
    }
}
