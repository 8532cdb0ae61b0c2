import AppexLocking
import AppexRegistry
import AppexSystem
import Foundation
import Synchronization

/// Waking a containing app for its session's events (docs/transfers.md): when a session has
/// events no attached process has been told, appexd launches the session's app in the
/// background with the session's identifier in `APPEX_BACKGROUND_URL_SESSION`, and
/// AppexApplication calls the app's handler with `handleEventsForBackgroundURLSession`'s
/// semantics. An app is launched once for each new event: one that does not attach, or ends
/// before it acknowledges, is launched again only when another event comes, and finds the
/// events waiting whenever it makes the session.
extension TransferSessions {
    /// The environment variable naming the session whose events the app was launched for.
    static let backgroundSessionVariable = "APPEX_BACKGROUND_URL_SESSION"

    /// Launches the app of each session whose newest event is newer than any it was
    /// launched for, and that has no process attached.
    func wakeApps() {
        guard let pending = try? registry.sessionsWithTransferEvents() else { return }
        for (app, session, newest) in pending {
            let key = Key(app: app, session: session)
            let due = attachments.withLock { $0[key] == nil } && woken.withLock { woken in
                guard woken[key].map({ $0 < newest }) ?? true else { return false }
                woken[key] = newest
                return true
            }
            guard due else { continue }
            guard let installed = try? registry.app(app) else { continue }
            do throws(SystemError) {
                try AppLaunch.start(installed, adding: [Self.backgroundSessionVariable: session])
            } catch {
                DaemonLog.write(line: "appexd: \(app) could not be launched for background session \(session)'s events: \(error)")
            }
        }
    }
}
