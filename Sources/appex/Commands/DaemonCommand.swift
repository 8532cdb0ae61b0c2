import AppexCore
import AppexHost
import AppexSystem
import AppexWire
import ArgumentParser
import Foundation

/// `appex daemon`: appexd's state, and starting, stopping and restarting it, as
/// `systemctl --user status|start|stop|restart` do for a unit.
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Manage appexd, the per-user daemon: status, start, stop, restart, log.",
        discussion: """
            appexd starts on demand, with the first request or query, so `start` is seldom needed. Under systemd \
            (the README's units), use systemctl --user instead: these act on the process, not on the unit.
            """,
        subcommands: [DaemonStatusCommand.self, DaemonStartCommand.self, DaemonStopCommand.self, DaemonRestartCommand.self, LogCommand.self],
        defaultSubcommand: DaemonStatusCommand.self
    )
}

/// `appex daemon status`.
struct DaemonStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say whether appexd runs, and its pid, age, memory, extension processes, socket and log (systemctl status).",
        discussion: "Never starts it. Exit status: 0 running, 3 not running (as systemctl's), 2 on error."
    )

    @Flag(help: "Print JSON.")
    var json = false

    struct Status: Encodable {
        var running: Bool
        var pid: Int32?
        var version: String
        var protocolVersion: UInt32?
        var uptimeSeconds: Int?
        var residentKiB: Int?
        var extensionProcesses: Int?
        var socket: String
        var log: String
        var logBytes: Int?
    }

    func run() async throws {
        let home = AppexHome.current
        var status = Status(running: false, version: AppexVersion.release, socket: home.daemonSocketURL.path, log: home.daemonLogURL.path,
                            logBytes: (try? FileManager.default.attributesOfItem(atPath: home.daemonLogURL.path)[.size] as? Int) ?? nil)
        if let daemon = try? await DaemonClient.connect(home: home, role: .cli, startIfNeeded: false) {
            defer { daemon.close() }
            status.running = true
            status.pid = daemon.daemonPID
            status.protocolVersion = daemon.version
            status.uptimeSeconds = ProcessFacts.ageInSeconds(of: daemon.daemonPID)
            status.residentKiB = ProcessMemory.residentBytes(of: daemon.daemonPID).map { Int($0 / 1024) }
            status.extensionProcesses = try? await daemon.processes().count
        }
        if json {
            try Output.json(status)
        } else {
            print(status.running ? "● appexd is running" : "○ appexd is not running; it starts with the first request, or `appex daemon start`")
            if let pid = status.pid {
                print("     pid: \(pid)" + (status.uptimeSeconds.map { ", up \(DaemonStatusCommand.age($0))" } ?? "")
                      + (status.residentKiB.map { ", \($0 / 1024) MiB resident" } ?? ""))
                print("    wire: protocol \(status.protocolVersion ?? 0) (this appex speaks \(WireVersion.current))")
                if let count = status.extensionProcesses { print("    runs: \(count) extension process\(count == 1 ? "" : "es") (`appex ps`)") }
            }
            print("  socket: \(status.socket)")
            print("     log: \(status.log)" + (status.logBytes.map { " (\($0 / 1024) KiB; `appex daemon log`)" } ?? " (none yet)"))
        }
        if !status.running { throw CommandFailure.silent(3) }
    }

    static func age(_ seconds: Int) -> String {
        seconds < 60 ? "\(seconds) s" : seconds < 3600 ? "\(seconds / 60) min" : "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }
}

/// `appex daemon start`.
struct DaemonStartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start appexd if it isn't running (systemctl start)."
    )

    func run() async throws {
        let pid = try await DaemonControl.start()
        print("appexd is running as pid \(pid)")
    }
}

/// `appex daemon stop`.
struct DaemonStopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop appexd and the extensions it runs (systemctl stop): SIGTERM, then SIGKILL after --timeout.",
        discussion: "Running requests end as interrupted. Succeeds if it wasn't running."
    )

    @OptionGroup var stopping: DaemonStopOptions

    func run() async throws {
        print(await DaemonControl.stop(timeout: stopping.duration))
    }
}

/// `appex daemon restart`.
struct DaemonRestartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Stop appexd, then start it again (systemctl restart): after an upgrade, or to pick up a changed environment."
    )

    @OptionGroup var stopping: DaemonStopOptions

    func run() async throws {
        print(await DaemonControl.stop(timeout: stopping.duration))
        let pid = try await DaemonControl.start()
        print("appexd is running as pid \(pid)")
    }
}

/// How long `stop` and `restart` wait for appexd to end.
struct DaemonStopOptions: ParsableArguments {
    @Option(help: "Seconds to wait for it to end before it is killed.")
    var timeout: Double = 10

    var duration: Duration { .milliseconds(Int(timeout * 1000)) }
}

/// Starting and stopping appexd, for `appex daemon`.
enum DaemonControl {
    /// Starts appexd if it isn't running; returns its pid.
    static func start() async throws -> Int32 {
        do {
            let daemon = try await DaemonClient.connect(role: .cli)
            defer { daemon.close() }
            return daemon.daemonPID
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: appexd could not be started: \(error.description)")
        }
    }

    /// Stops appexd: SIGTERM, a wait of up to `timeout`, then SIGKILL. Says what happened.
    static func stop(timeout: Duration) async -> String {
        switch await DaemonClient.stopDaemon(home: .current, timeout: timeout, killing: true) {
        case .notRunning: "appexd was not running"
        case .stopped(let pid): "appexd (pid \(pid)) stopped"
        case .killed(let pid): "appexd (pid \(pid)) did not stop within \(timeout); it was killed"
        case .stillRunning(let pid): "appexd (pid \(pid)) is still running, even after SIGKILL"
        }
    }
}
