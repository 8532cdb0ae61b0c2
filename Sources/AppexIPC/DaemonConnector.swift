public import AppexCore
public import AppexSystem
public import AppexWire
import Foundation

/// Connects to the home's daemon, starting one when none is running.
///
/// Several processes may do this at once: each starts a daemon, the daemons race for the
/// home's lock, exactly one wins and the others exit, and every caller connects to the winner.
public enum DaemonConnector {
    /// How long to wait for a daemon that was just started to accept connections.
    public static let startTimeout: Duration = .seconds(5)

    /// A socket connected to `home`'s appexd, started first if `startIfNeeded` and none runs.
    public static func connect(home: AppexHome, startIfNeeded: Bool) throws(ErrorInfo) -> FileDescriptor {
        let path = home.daemonSocketURL.path
        if let socket = try? UnixSocket.connect(to: path) { return socket }
        guard startIfNeeded else {
            throw unreachable("appexd is not running at \(path)", "Start it with `appexd`, or let the host start it on demand.")
        }
        let executable = try daemonExecutable()
        do {
            try home.prepareRuntimeDirectory()
            let log = try FileDescriptor.open(home.daemonLogURL.path, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
            var environment = ProcessInfo.processInfo.environment
            if !home.isSameLocation(as: .current) { environment.merge(home.selectingEnvironment) { $1 } }
            _ = try ProcessLaunch(executable: executable, environment: environment, descriptors: [(log, 1), (log, 2)]).spawnDetached()
        } catch {
            throw unreachable("appexd (\(executable)) could not be started: \(error)", "Run `appexd` by hand to see why.")
        }
        let deadline = ContinuousClock.now + startTimeout
        var lastError: SystemError?
        while ContinuousClock.now < deadline {
            do {
                return try UnixSocket.connect(to: path)
            } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        throw unreachable("appexd did not start accepting at \(path) within 5 s (\(lastError.map { "\($0)" } ?? "no error"))",
                          "See \(home.daemonLogURL.path) for what it said.")
    }

    /// appexd: `APPEX_DAEMON` if set, else beside this program, else on PATH.
    public static func daemonExecutable() throws(ErrorInfo) -> String {
        let program = CompanionProgram.daemon
        guard let path = program.locate() else { throw unreachable(program.notFound.message, program.notFound.suggestion) }
        return path
    }

    /// The code of an error that says appexd can't be reached, has gone, or is shutting down.
    public static let goneCode = 6

    /// An error that says appexd can't be reached, with what to do.
    public static func unreachable(_ message: String, _ suggestion: String) -> ErrorInfo {
        ErrorInfo(domain: AppexErrorDomain.runtime, code: goneCode, message: message, recoverySuggestion: suggestion)
    }
}
