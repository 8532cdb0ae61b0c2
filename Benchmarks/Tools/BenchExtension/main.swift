// The extension the runtime benchmarks run: it answers at once, with one item whose content
// text reports when `beginRequest` ran and when this file's top-level code started
// (CLOCK_MONOTONIC, nanoseconds), and its pid, so the host can split a cold start and find
// the process to measure.
//
// - An attachment registered as `public.data` is loaded as data (a descriptor, mapped) and
//   its byte 0 read before answering: the handover benchmark.
// - Content text `conform` makes it ask `hasItemConformingToTypeIdentifier("public.text")`
//   first, as most real extensions do, which loads the system type table.
// - Content text `executable` makes it answer with what `/proc/self/exe` names: the launcher's
//   program where appexd forked it from its launcher (docs/zygote.md).
// - Anything else is answered without touching the attachments.
import AppexKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class Handler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let began = Reply.now()
        let item = context.inputItems.first as? NSExtensionItem
        let provider = item?.attachments?.first
        if let provider, provider.registeredTypeIdentifiers.first == "public.data" {
            provider.loadDataRepresentation(forTypeIdentifier: "public.data") { data, error in
                let first = data?.first.map { "\($0)" } ?? "error: \(error.map { "\($0)" } ?? "no data")"
                Reply.send(context, began: began, extra: first)
            }
            return
        }
        if item?.attributedContentText?.string == "executable" {
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "unknown"
            Reply.send(context, began: began, extra: executable)
            return
        }
        if item?.attributedContentText?.string == "conform", let provider {
            let conforms = provider.hasItemConformingToTypeIdentifier("public.text")
            Reply.send(context, began: began, extra: "\(conforms)")
            return
        }
        Reply.send(context, began: began, extra: "")
    }
}

enum Reply {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Completes the request with "BEGAN PID MAIN EXTRA" as the content text of one item.
    static func send(_ context: NSExtensionContext, began: UInt64, extra: String) {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: "\(began) \(getpid()) \(mainStarted) \(extra)")
        context.completeRequest(returningItems: [item], completionHandler: nil)
    }
}

/// When the top-level code started: after exec, the dynamic loader and the Swift runtime's
/// start-up, before NSExtensionMain.
let mainStarted = Reply.now()
NSExtensionMain()
