import AppexRegistry
import AppexSystem
import Foundation

/// Starts an installed app in the background, for a URL it opens or a background session's
/// events: its installed executable, with appexd's environment and what the launch adds, as
/// a process of its own that a thread of appexd reaps.
enum AppLaunch {
    static func start(_ app: InstalledApp, adding variables: [String: String]) throws(SystemError) {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(variables) { $1 }
        let child = try ProcessLaunch(executable: app.executableURL.path, arguments: [], environment: environment).spawn()
        Thread { child.waitForExit(timeoutMilliseconds: -1); _ = child.reap() }.start()
    }
}
