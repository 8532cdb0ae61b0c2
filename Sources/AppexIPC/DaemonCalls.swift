import AppexCore
import AppexLocking
import AppexSystem
public import AppexWire
public import Foundation

/// How this process makes a call to appexd for itself: a group's container
/// (`GroupContainer`), a widget's content setting (`WidgetHasContent`). An app calls on a
/// connection of its own, opened for the call and appexd started if need be; an extension
/// calls on the control channel appexd gave it, which its runtime installs
/// (``install(_:)``). appexd finds who is calling from the kernel either way, never from
/// what the call says.
public enum DaemonCalls {
    /// Makes one call: the message for a call number, and the lowest protocol version that
    /// has it. It answers appexd's answer, or why there is none.
    public typealias Caller = @Sendable (_ version: UInt32, _ message: @escaping @Sendable (UInt64) -> WireMessage)
        -> Result<WireMessage, DaemonCallError>

    /// How long an app waits for appexd's handshake and for each answer.
    public static let timeout: DispatchTimeInterval = .seconds(5)

    private static let caller = Locked<Caller>(onOwnConnection)

    /// Calls appexd with `message`, which needs protocol `version` or later, and waits for
    /// the answer, at most ``timeout`` for an app.
    public static func call(needing version: UInt32, _ message: @escaping @Sendable (UInt64) -> WireMessage)
        -> Result<WireMessage, DaemonCallError> {
        caller.withLock { $0 }(version, message)
    }

    /// Makes `caller` the way this process calls appexd, from now on.
    package static func install(_ caller: @escaping Caller) {
        self.caller.withLock { $0 = caller }
    }

    /// An app's call: a connection of its own for it, with the handshake first.
    private static func onOwnConnection(_ version: UInt32, _ message: @escaping @Sendable (UInt64) -> WireMessage)
        -> Result<WireMessage, DaemonCallError> {
        let link: DaemonLink
        do throws(ErrorInfo) {
            link = try DaemonLink.open()
        } catch {
            return .failure(DaemonCallError("appexd could not be reached: \(error.message) \(error.recoverySuggestion)"))
        }
        defer { link.connection.close() }
        guard let spoken = link.version, spoken >= version else {
            return .failure(DaemonCallError("appexd speaks protocol version \(link.version ?? 0), which can't answer this (version \(version)); restart it with this build"))
        }
        return onChannel(link.connection)(version, message)
    }

    /// Calls on `connection`, already greeted: an extension's control channel, or an app's own.
    /// Each call blocks until the answer arrives on the connection's reading thread, so it
    /// must never be made on that thread (extension code never runs there).
    public static func onChannel(_ connection: Connection) -> Caller {
        { _, message in
            do throws(ConnectionError) {
                return .success(try connection.callWaiting(message, timeout: timeout).message)
            } catch {
                return .failure(DaemonCallError("appexd could not be asked: \(error)"))
            }
        }
    }
}

/// Why a call to appexd has no answer.
public struct DaemonCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in a sentence.
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
