// appexd: the per-user daemon that launches extensions and relays their requests.
// The logic lives in AppexDaemon; this runs it in the foreground until SIGTERM or SIGINT.
import AppexCore
import AppexDaemon
import AppexSystem
import Foundation

let home = AppexHome.current
let configuration = DaemonConfiguration.fromEnvironment(ProcessInfo.processInfo.environment, home: home)
do {
    try await Daemon(configuration: configuration).run()
} catch DaemonError.alreadyRunning(let socket) {
    StandardError.write(line: "appexd: another appexd already serves \(socket); nothing to do.")
    exit(0)
} catch {
    StandardError.write(line: "appexd: \(error)")
    exit(1)
}
