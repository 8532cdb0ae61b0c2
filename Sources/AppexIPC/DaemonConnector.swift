public import AppexCore
public import AppexSystem
public import AppexWire
import Foundation

/// Connects to the home's daemon, starting one when none is running.
///
/// Several processes may do this at once: each starts a daemon, the daemons race for the
/// home's lock, exactly one wins and the others exit, and every caller connects to the winner.
///
/// What listens at the socket gets the host's items and the files the user picks, so it must
/// be this user's appexd: the runtime folder must be the user's own and closed to others'
/// writes, and the kernel must say the listener runs as this user (`SO_PEERCRED`). A
/// connection that fails either check is refused before anything is sent on it.
public enum DaemonConnector {
    /// How long to wait for a daemon that was just started to accept connections.
    public static let startTimeout: Duration = .seconds(5)

    /// A socket connected to `home`'s appexd, started first if `startIfNeeded` and none runs.
    public static func connect(home: AppexHome, startIfNeeded: Bool) throws(ErrorInfo) -> FileDescriptor {
        let path = home.daemonSocketURL.path
        do {
            try home.checkRuntimeDirectoryIsPrivate()
        } catch {
            throw unsafe("appexd's runtime folder can't be trusted: \(error.message)")
        }
        if let socket = try? UnixSocket.connect(to: path) { return try ownDaemon(socket, at: path) }
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
            let socket: FileDescriptor
            do {
                socket = try UnixSocket.connect(to: path)
            } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.005)
                continue
            }
            return try ownDaemon(socket, at: path)
        }
        throw unreachable("appexd did not start accepting at \(path) within 5 s (\(lastError.map { "\($0)" } ?? "no error"))",
                          "See \(home.daemonLogURL.path) for what it said.")
    }

    /// `socket`, connected to `path`, if the kernel says what listens there runs as this user;
    /// else it is closed, with nothing sent on it.
    static func ownDaemon(_ socket: FileDescriptor, at path: String) throws(ErrorInfo) -> FileDescriptor {
        let listener: PeerCredentials
        do {
            listener = try PeerCredentials(of: socket)
        } catch {
            socket.close()
            throw unsafe("who listens at \(path) can't be told: \(error)")
        }
        guard listener.userID == geteuid() else {
            socket.close()
            throw unsafe("what listens at \(path) (pid \(listener.processID)) runs as uid \(listener.userID), not as this user (uid \(geteuid())), so it is not this user's appexd; nothing was sent to it")
        }
        return socket
    }

    /// An error that says a connection to appexd was refused as unsafe, with what to do.
    static func unsafe(_ message: String) -> ErrorInfo {
        unreachable(message, "Stop whatever made it and remove the runtime folder, or set XDG_RUNTIME_DIR to a folder of your own; appexd makes its folder private (0700) when it starts.")
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
