// appexd: the per-user daemon that launches extensions and relays their requests.
// The logic lives in AppexDaemon; this runs it in the foreground until SIGTERM or SIGINT.
import AppexCore
import AppexDaemon
import AppexSystem
import AppexWire
import Foundation

ProgramArguments(program: "appexd", versionDetail: "wire protocol \(WireVersion.current)", help: """
    appexd: Appex's per-user daemon. It answers hosts' queries from the registry, launches
    extensions in their sandboxes, relays their requests, and ends them when idle. Hosts and
    `appex` start it on demand; `appex daemon status|start|stop|restart|log` manages it.

    Usage: appexd [--help] [--version]

    It runs in the foreground until SIGTERM or SIGINT, serving the home the environment selects:
      APPEX_HOME                  everything under one folder, or else
      XDG_DATA_HOME, XDG_RUNTIME_DIR   data in $XDG_DATA_HOME/appex, its socket and log in $XDG_RUNTIME_DIR/appex
    Its socket is appexd.sock in the runtime folder; started on demand, it logs to appexd.log there.
    A systemd socket unit can hand it the socket (LISTEN_FDS); the README shows the units.

    Limits and deadlines, for tests and tuning (milliseconds unless named):
      APPEX_IDLE_GRACE_MS, APPEX_LAUNCH_DEADLINE_MS, APPEX_REQUEST_DEADLINE_MS,
      APPEX_TERMINATION_GRACE_MS, APPEX_IDLE_CLOSE_MS, APPEX_TRANSFERS_CHECK_MS,
      APPEX_HANDSHAKE_DEADLINE_MS, APPEX_FRAME_DEADLINE_MS,
      APPEX_MEMORY_LIMIT_MB, APPEX_PROCESS_LIMIT, APPEX_LOG_LIMIT_KB,
      APPEX_DESCRIPTORS_PER_PROCESS, APPEX_DESCRIPTORS_IN_FLIGHT, APPEX_RESERVED_DESCRIPTORS
      APPEX_SANDBOX=strict        refuse to launch where a sandbox layer is missing
      APPEX_SANDBOX=off           launch extensions unsandboxed (says so at each launch)
    docs/runtime.md and docs/sandbox.md say more.
    """).handle()

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
