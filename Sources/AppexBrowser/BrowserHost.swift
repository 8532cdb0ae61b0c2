public import AppexCore
import AppexBundles
import AppexHost
import AppexItems
import AppexLocking
import AppexShare
import AppexWire
import Foundation

/// The native messaging host's work: it answers the Appex browser extension's messages
/// (docs/browser.md, "Messages") by asking appexd as any host does, and runs the requests
/// the user starts from the browser.
///
/// Each message is handled on its own, so a running request never holds up a list; a
/// message that can't be read gets an error reply, and the host goes on with the next.
///
/// ```swift
/// let host = BrowserHost(version: "1.0") { reply in channel.write(reply) }
/// await host.serve(channel.frames)
/// ```
public final class BrowserHost: Sendable {
    /// Where a reply goes: the JSON of one message to the browser.
    public typealias Send = @Sendable ([UInt8]) -> Void

    /// A request the user started, by the `id` of its `begin`.
    private enum Running {
        case action(Task<ExtensionRequestOutcome, any Error>)
        case share(ComposeSession)
        /// Being launched.
        case starting
        /// Cancelled while it was being launched.
        case cancelled
    }

    private let home: AppexHome
    private let version: String
    private let send: Send
    private let running = Locked<[Int: Running]>([:])
    /// The extensions the last lists offered, by identifier, so that the `script` and
    /// `begin` after a list don't ask appexd again. appexd still decides at `begin`: an
    /// extension disabled or removed since is refused there.
    private let listed = Locked<[String: NSExtension]>([:])

    public init(home: AppexHome = .current, version: String, send: @escaping Send) {
        self.home = home
        self.version = version
        self.send = send
    }

    /// Serves the messages of `frames` until the browser closes the stream, then cancels
    /// the requests still running. `handled` runs as each message has been handled.
    public func serve(_ frames: some AsyncSequence<NativeMessageDecoder.Frame, Never>, handled: @escaping @Sendable () -> Void = {}) async {
        // A discarding group lets go of each message's task once it is done; a plain group
        // would keep every one until the browser leaves.
        await withDiscardingTaskGroup { group in
            for await frame in frames {
                group.addTask {
                    await self.receive(frame)
                    handled()
                }
            }
            cancelAll()
        }
    }

    /// Handles one message from the browser, and replies.
    public func receive(_ frame: NativeMessageDecoder.Frame) async {
        switch frame {
        case .oversized(let length):
            reply(.failure(id: nil, error: "a message of \(length) bytes was dropped; the host takes at most \(NativeMessageDecoder.defaultLimit)"))
        case .message(let bytes):
            do throws(BrowserMessageError) {
                try await handle(try BrowserRequest(json: bytes))
            } catch {
                reply(.failure(id: error.id, error: error.description))
            }
        }
    }

    /// Cancels every request still running, and those still being launched once they
    /// are: the browser has gone.
    public func cancelAll() {
        let all = running.withLock { running in
            defer {
                for (id, request) in running {
                    if case .starting = request { running[id] = .cancelled } else { running[id] = nil }
                }
            }
            return Array(running.values)
        }
        for request in all { cancel(request) }
    }

    private func reply(_ reply: BrowserReply) {
        send(reply.json)
    }

    private func handle(_ request: BrowserRequest) async throws(BrowserMessageError) {
        let id = request.id
        switch request.kind {
        case .hello:
            reply(.hello(id: id, version: version))
        case .list(let context):
            reply(.extensions(id: id, try await listings(for: context, id: id)))
        case .script(let identifier):
            let file = try await preprocessingFile(of: identifier, id: id)
            reply(.script(id: id, file: file.fileName, source: file.source))
        case .begin(let identifier, let context, let results):
            try await begin(id: id, identifier: identifier, context: context, results: results)
        case .compose(let requestID, let message):
            guard case .share(let session)? = running.withLock({ $0[requestID] }) else {
                throw BrowserMessageError(id: id, "no compose sheet of request \(requestID) is open")
            }
            do throws(ErrorInfo) {
                try session.send(message)
                reply(.sent(id: id))
            } catch {
                throw BrowserMessageError(id: id, "the compose sheet is gone: \(error.description)")
            }
        case .cancel(let requestID):
            let request = running.withLock { running -> Running? in
                guard let request = running[requestID] else { return nil }
                if case .starting = request { running[requestID] = .cancelled }
                return request
            }
            if let request { cancel(request) }
            reply(.sent(id: id))
        }
    }

    private func cancel(_ request: Running) {
        switch request {
        case .action(let task): task.cancel()
        case .share(let session): session.cancel()
        case .starting, .cancelled: break
        }
    }

    // MARK: Listing

    /// The Share and Action extensions that accept `context`, in the user's order, each
    /// marked with whether it gets the web page.
    private func listings(for context: PageContext, id: Int) async throws(BrowserMessageError) -> [BrowserReply.Listing] {
        var listings: [BrowserReply.Listing] = []
        do {
            for point in [ExtensionPoint.share, ExtensionPoint.action] {
                let plain = Set(try await NSExtension.extensions(ofPoint: point.id, matching: PageItems.items(for: context, results: nil), home: home).map(\.identifier))
                var withPage: Set<String> = []
                if context.kind == .page {
                    withPage = Set(try await NSExtension.extensions(ofPoint: point.id, matching: PageItems.items(for: context, results: [:]), home: home)
                        .filter { !$0.summary.javaScriptPreprocessingFile.isEmpty }.map(\.identifier))
                }
                guard !plain.isEmpty || !withPage.isEmpty else { continue }
                for candidate in try await NSExtension.installedExtensions(ofPoint: point.id, home: home)
                where plain.contains(candidate.identifier) || withPage.contains(candidate.identifier) {
                    listed.withLock { $0[candidate.identifier] = candidate }
                    listings.append(BrowserReply.Listing(identifier: candidate.identifier, name: candidate.summary.displayName,
                                                         point: point == .share ? "share" : "action", app: candidate.summary.containingApp,
                                                         preprocessing: withPage.contains(candidate.identifier)))
                }
            }
        } catch {
            throw BrowserMessageError(id: id, "appexd could not be asked which extensions accept the page: \(ErrorText.describe(error))")
        }
        return listings
    }

    /// The extension `identifier`, as the last list offered it, or else as appexd has it now.
    private func lookUp(_ identifier: String, id: Int, afresh: Bool = false) async throws(BrowserMessageError) -> NSExtension {
        if !afresh, let known = listed.withLock({ $0[identifier] }) { return known }
        do {
            let found = try await NSExtension.extension(withIdentifier: identifier, home: home)
            listed.withLock { $0[identifier] = found }
            return found
        } catch {
            listed.withLock { $0[identifier] = nil }
            throw BrowserMessageError(id: id, ErrorText.describe(error))
        }
    }

    /// The preprocessing file of `identifier`, read from its bundle. If it can't be read
    /// where the last list saw the bundle, appexd is asked again: the app may have been
    /// updated since.
    private func preprocessingFile(of identifier: String, id: Int) async throws(BrowserMessageError) -> PreprocessingFile {
        var afresh = false
        while true {
            let summary = try await lookUp(identifier, id: id, afresh: afresh).summary
            guard !summary.javaScriptPreprocessingFile.isEmpty else {
                throw BrowserMessageError(id: id, "\(summary.displayName) (\(identifier)) has no NSExtensionJavaScriptPreprocessingFile")
            }
            do throws(PreprocessingFileError) {
                return try PreprocessingFile.read(summary.javaScriptPreprocessingFile, inExtensionAt: URL(fileURLWithPath: summary.bundlePath))
            } catch where !afresh {
                afresh = true
            } catch {
                throw BrowserMessageError(id: id, "\(summary.displayName)'s preprocessing file can't be used: \(error)")
            }
        }
    }

    // MARK: Requests

    private func begin(id: Int, identifier: String, context: PageContext, results: [String: PropertyListValue]?) async throws(BrowserMessageError) {
        let chosen = try await lookUp(identifier, id: id)
        let point = chosen.summary.point
        guard point == ExtensionPoint.share.id || point == ExtensionPoint.action.id else {
            throw BrowserMessageError(id: id, "\(chosen.summary.displayName) (\(identifier)) is not a Share or Action extension; a browser sends only to those")
        }
        if context.kind == .image, context.image?.data == nil {
            throw BrowserMessageError(id: id, "the image's bytes are missing; the browser sends them with begin")
        }
        if results != nil {
            guard context.kind == .page else { throw BrowserMessageError(id: id, "preprocessing results come only with a page, not a \(context.kind.rawValue)") }
            guard !chosen.summary.javaScriptPreprocessingFile.isEmpty else {
                throw BrowserMessageError(id: id, "\(chosen.summary.displayName) has no preprocessing file, so it takes no preprocessing results")
            }
        }
        let isNew = running.withLock { running in
            guard running[id] == nil else { return false }
            running[id] = .starting
            return true
        }
        guard isNew else { throw BrowserMessageError(id: id, "request \(id) has already begun; give each begin its own id") }
        defer { running.withLock { $0[id] = nil } }
        let items = PageItems.items(for: context, results: results)
        reply(.launching(id: id))
        if point == ExtensionPoint.action.id {
            try await performAction(chosen, items: items, id: id)
        } else {
            try await compose(chosen, items: items, id: id)
        }
    }

    private func performAction(_ chosen: NSExtension, items: [NSExtensionItem], id: Int) async throws(BrowserMessageError) {
        let task = Task { () async throws -> ExtensionRequestOutcome in try await chosen.request(withInputItems: items) }
        if !register(.action(task), id: id) { task.cancel() }
        let outcome: ExtensionRequestOutcome
        do {
            outcome = try await task.value
        } catch {
            throw BrowserMessageError(id: id, "\(chosen.summary.displayName) could not start: \(ErrorText.describe(error))")
        }
        try await end(outcome, id: id)
    }

    private func compose(_ chosen: NSExtension, items: [NSExtensionItem], id: Int) async throws(BrowserMessageError) {
        let session: ComposeSession
        do {
            session = try await ComposeSession.begin(chosen, items: items)
        } catch {
            throw BrowserMessageError(id: id, "\(chosen.summary.displayName) could not start: \(ErrorText.describe(error))")
        }
        if !register(.share(session), id: id) { session.cancel() }
        var seen = 0
        while let (sheet, revision) = await session.sheet(after: seen) {
            seen = revision
            reply(.sheet(id: id, sheet))
        }
        let outcome = await session.outcome()
        if let failure = session.failure {
            throw BrowserMessageError(id: id, "\(chosen.summary.displayName)'s compose sheet can't be shown, so the request was cancelled: \(failure)")
        }
        try await end(outcome, id: id)
    }

    /// Keeps a request so that `compose` and `cancel` find it; false if it was cancelled
    /// while it was being launched, when the caller cancels it and reports it so.
    private func register(_ request: Running, id: Int) -> Bool {
        running.withLock { running in
            if case .cancelled? = running[id] {
                running[id] = nil
                return false
            }
            running[id] = request
            return true
        }
    }

    private func end(_ outcome: ExtensionRequestOutcome, id: Int) async throws(BrowserMessageError) {
        switch outcome {
        case .completed(let returned):
            var update: BrowserReply.PageUpdate
            do throws(BrowserMessageError) {
                update = try await .reading(returned)
            } catch {
                throw BrowserMessageError(id: id, error.description)
            }
            reply(.completed(id: id, update))
        case .cancelled(let error):
            reply(.cancelled(id: id, error: ErrorText.describe(error)))
        case .interrupted(let interruption):
            reply(.interrupted(id: id, error: interruption.message))
        }
    }
}
