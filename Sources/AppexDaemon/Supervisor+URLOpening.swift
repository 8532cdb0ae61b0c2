import AppexCore
import AppexIPC
import AppexLocking
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation
import Synchronization

/// URLs an extension asks to open (`NSExtensionContext.open`): appexd checks the point's
/// policy, finds the installed app that declares the URL's scheme, asks the request's host to
/// confirm with the user, and only then launches that app with the URL (docs/wire.md,
/// "Opening URLs").
extension Supervisor {
    /// The environment variable that hands a launched app the URL it opens; AppexApplication
    /// reads it into `UIApplication.shared.launchOptions`.
    static let openURLVariable = "APPEX_OPEN_URL"
    /// The environment variable naming the extension that asked.
    static let sourceApplicationVariable = "APPEX_SOURCE_APPLICATION"

    func openURL(_ request: OpenURL, session: UInt64) {
        guard let record = state.withLock({ $0.processes[session] }) else { return }
        @Sendable func answer(_ result: Result<Void, URLRefusal>) {
            let answer = switch result {
            case .success: OpenURLResult(call: request.call, opened: true, reason: "")
            case .failure(let refusal): OpenURLResult(call: request.call, opened: false, reason: refusal.reason)
            }
            try? record.control.send(.openURLResult(answer))
        }
        guard record.policy.mayOpenURLs else {
            let point = ExtensionPoint.catalog[record.installed.pointIdentifier]?.name ?? record.installed.pointIdentifier
            return answer(.failure(URLRefusal("extensions of \(point) may not open URLs: only points whose policy allows it, such as Today widgets, may")))
        }
        let notRunning = URLRefusal("the URL names no request of \(record.installed.identifier) that is running, so no host can confirm it")
        guard let requestID = request.requestID else { return answer(.failure(notRunning)) }
        whenRunning(requestID, in: session) { [self] isRunning in
            guard isRunning else { return answer(.failure(notRunning)) }
            openURL(request, of: requestID, from: record, session: session, answer: answer)
        }
    }

    /// Opens the URL `request` asks for, for `requestID`, which runs in the process of `record`.
    private func openURL(_ request: OpenURL, of requestID: UUID, from record: ExtensionProcessRecord, session: UInt64,
                         answer: @escaping @Sendable (Result<Void, URLRefusal>) -> Void) {
        let app: InstalledApp
        switch URLOpener.app(opening: request.url, handler: registry.app(openingScheme:)) {
        case .success(let found): app = found
        case .failure(let refusal): return answer(.failure(refusal))
        }
        guard let host = state.withLock({ $0.clients[record.hostID] }) else {
            return answer(.failure(URLRefusal("the host of request \(requestID) has gone")))
        }
        guard host.version >= WireVersion.urlConfirmation else {
            return answer(.failure(URLRefusal("the host of request \(requestID) can't confirm URLs: it speaks protocol version \(host.version), "
                + "and confirming needs \(WireVersion.urlConfirmation)")))
        }
        if let waiting = startAsking(for: session) { return answer(.failure(URLRefusal(waiting))) }
        var asked = request
        asked.extensionIdentifier = record.installed.identifier
        asked.extensionName = record.installed.displayName
        asked.appName = app.displayName
        Task {
            let confirmed = await confirm(asked, with: host, for: session)
            answer(confirmed.flatMap { launch(app, opening: request.url, for: record.installed.identifier) })
        }
    }

    /// Asks `host` to confirm `asked` with its user, for the process of `session`.
    private func confirm(_ asked: OpenURL, with host: ClientRecord, for session: UInt64) async -> Result<Void, URLRefusal> {
        var asked = asked
        let confirmation: IncomingMessage
        do throws(ConnectionError) {
            confirmation = try await ask(through: host, for: session) { call in
                asked.call = call
                return .openURL(asked)
            }
        } catch {
            return .failure(URLRefusal("the host could not be asked to confirm: \(error)"))
        }
        guard case .openURLResult(let confirmed) = confirmation.message else {
            return .failure(URLRefusal("the host answered OpenURL with \(confirmation.message.name)"))
        }
        guard confirmed.opened else {
            return .failure(URLRefusal(confirmed.reason.isEmpty ? "the host declined to open \(asked.url)" : confirmed.reason))
        }
        return .success(())
    }

    /// Starts `app` with `url` in its environment.
    private func launch(_ app: InstalledApp, opening url: String, for source: String) -> Result<Void, URLRefusal> {
        do throws(SystemError) {
            try AppLaunch.start(app, adding: [Self.openURLVariable: url, Self.sourceApplicationVariable: source])
            return .success(())
        } catch {
            return .failure(URLRefusal("\(app.displayName) could not be launched: \(error)"))
        }
    }
}
