import AppexCore
import AppexRegistry
import AppexSystem
import Foundation

/// appexd's side of the transfers' process (appex-transfers, docs/transfers.md): it starts
/// the process when the registry has transfers to perform and none runs, and tells a running
/// one to look at the registry again. The process outlives appexd, so transfers go on while
/// appexd restarts, and appexd doesn't carry an HTTP client.
struct TransfersProcess: Sendable {
    let home: AppexHome
    let registry: Registry
    /// The size past which the process's log, `transfers.log`, moves to `transfers.log.1`
    /// when a process starts (appexd's own log's limit).
    let logLimit: Int

    /// Tells the running process to look at the registry again (a task was added or ended),
    /// or starts one if none runs.
    func wake() {
        if let connection = try? UnixSocket.connect(to: home.transfersSocketURL.path) {
            connection.close()
        } else {
            start()
        }
    }

    /// Starts the process if the registry has transfers to perform and none runs: at
    /// appexd's start, and at each check after, so that one that crashed is replaced.
    func startIfNeeded() {
        guard ProcessLock.holder(at: home.transfersLockURL.path) == nil else { return }
        do {
            guard try registry.hasUnfinishedTransfers() else { return }
        } catch {
            return report("could not look for transfers to perform: \(error)")
        }
        start()
    }

    /// Starts a process, detached: it takes the home's transfers lock, or exits at once if
    /// another process holds it.
    private func start() {
        let program = CompanionProgram.transfers
        guard let executable = program.locate() else {
            return report("\(program.notFound.message), so transfers wait. \(program.notFound.suggestion)")
        }
        do {
            DaemonLog.moveAside(home.transfersLogURL, ifPast: logLimit)
            let log = try FileDescriptor.open(home.transfersLogURL.path, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
            var environment = ProcessInfo.processInfo.environment
            if !home.isSameLocation(as: .current) { environment.merge(home.selectingEnvironment) { $1 } }
            _ = try ProcessLaunch(executable: executable, environment: environment, descriptors: [(log, 1), (log, 2)]).spawnDetached()
        } catch {
            report("could not start \(executable), so transfers wait: \(error). Run it by hand to see why.")
        }
    }

    private func report(_ message: String) {
        DaemonLog.write(line: "appexd: \(message)")
    }
}
