import AppexCore
import AppexLocking
public import AppexSystem
public import AppexWire
public import Foundation

/// A lasting, greeted connection from this process to appexd, for what appexd tells it
/// later, unasked: a background session's task updates and events.
///
/// An extension's link is its control channel, which its runtime reads and installs
/// (``install(_:)``); an app opens links of its own (``open()``). Listeners hear each
/// message appexd sends that answers no call, and hear once that the link ended.
public final class DaemonLink: Sendable {
    /// What a listener hears.
    public enum News: Sendable {
        /// A message appexd sent unasked.
        case message(WireMessage)
        /// The link ended, for the reason given; nothing more comes on it.
        case ended(String)
    }

    public typealias Listener = @Sendable (News) -> Void

    /// How long to wait for appexd's handshake and for each answer.
    public static let timeout: DispatchTimeInterval = .seconds(5)

    public let connection: Connection

    private struct State {
        var version: UInt32?
        var ending: String?
        var listeners: [UInt64: Listener] = [:]
        var nextListener: UInt64 = 0
    }

    private let state = Locked(State())
    private let greeted = DispatchSemaphore(value: 0)

    private static let installedLink = Locked<DaemonLink?>(nil)

    /// A link over `connection`, whose reader passes everything that answers no call to
    /// ``deliver(_:)`` and its end to ``end(_:)``.
    package init(connection: Connection) {
        self.connection = connection
    }

    /// Makes `link` this process's link from now on: an extension's control channel.
    package static func install(_ link: DaemonLink) {
        installedLink.withLock { $0 = link }
    }

    /// The link its runtime installed, in an extension; nil in an app, which opens its own.
    public static var installed: DaemonLink? {
        installedLink.withLock { $0 }
    }

    /// Opens a connection of this process's own to appexd, starting it if none runs, and
    /// greets it. Close the link's connection when done with it.
    public static func open() throws(ErrorInfo) -> DaemonLink {
        let socket = try DaemonConnector.connect(home: .current, startIfNeeded: true)
        let link = DaemonLink(connection: Connection(socket: socket, name: "appexd"))
        link.connection.start { incoming in
            link.deliver(incoming.message)
        } onClose: { closure in
            link.end("the connection to appexd ended (\(closure))")
        }
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "app").lastPathComponent
        do throws(ConnectionError) {
            try link.connection.send(.hello(Hello(role: .host, name: name)))
        } catch {
            link.connection.close()
            throw DaemonConnector.unreachable("appexd could not be greeted: \(error)", "See \(AppexHome.current.daemonLogURL.path) for what it said.")
        }
        guard link.version != nil else {
            link.connection.close()
            throw DaemonConnector.unreachable("appexd did not answer the handshake", "See \(AppexHome.current.daemonLogURL.path) for what it said.")
        }
        return link
    }

    /// The protocol version appexd agreed to, waiting for its welcome at most ``timeout``;
    /// nil if none came.
    public var version: UInt32? {
        if let version = state.withLock({ $0.version }) { return version }
        _ = greeted.wait(timeout: .now() + Self.timeout)
        greeted.signal() // whoever waits next finds it at once
        return state.withLock { $0.version }
    }

    /// Calls appexd with `message`, which needs protocol `version` or later, and waits at
    /// most ``timeout`` for the answer. appexd's `Failure` answer is thrown as its error.
    public func call(needing version: UInt32, _ message: (UInt64) -> WireMessage,
                     descriptors: [FileDescriptor] = []) throws(ErrorInfo) -> WireMessage {
        guard let spoken = self.version else {
            throw DaemonConnector.unreachable("appexd did not answer the handshake", "Restart appexd.")
        }
        guard spoken >= version else {
            throw DaemonConnector.unreachable("appexd speaks protocol version \(spoken), which can't answer this (version \(version))",
                                              "Restart appexd with this build.")
        }
        do throws(ConnectionError) {
            return try connection.callWaiting(message, descriptors: descriptors, timeout: Self.timeout).message
        } catch .failed(let error) {
            throw error
        } catch {
            throw DaemonConnector.unreachable("appexd could not be asked: \(error)", "See \(AppexHome.current.daemonLogURL.path) for what it said.")
        }
    }

    /// Sends `message`, which no answer follows.
    public func send(_ message: WireMessage) throws(ErrorInfo) {
        do throws(ConnectionError) {
            try connection.send(message)
        } catch {
            throw DaemonConnector.unreachable("appexd could not be told: \(error)", "See \(AppexHome.current.daemonLogURL.path) for what it said.")
        }
    }

    /// Adds `listener`; it hears ``News/ended(_:)`` at once if the link has ended. Returns
    /// the number that ``stopListening(_:)`` takes.
    @discardableResult
    public func listen(_ listener: @escaping Listener) -> UInt64 {
        let (number, ending) = state.withLock { state in
            state.nextListener += 1
            state.listeners[state.nextListener] = listener
            return (state.nextListener, state.ending)
        }
        if let ending { listener(.ended(ending)) }
        return number
    }

    public func stopListening(_ number: UInt64) {
        state.withLock { _ = $0.listeners.removeValue(forKey: number) }
    }

    /// Passes a message appexd sent unasked to the listeners; a welcome sets the version,
    /// and a failure that answers no call (appexd refused something sent without one) is
    /// written to standard error, since no one waits for it.
    package func deliver(_ message: WireMessage) {
        switch message {
        case .welcome:
            do throws(WireError) {
                let version = try Handshake.confirm(message)
                state.withLock { $0.version = version }
            } catch {
                StandardError.write(line: "appexd's answer to Hello can't be used: \(error.message). Restart appexd with this build.")
                connection.close()
            }
            greeted.signal()
            return
        case .failure(let failure):
            StandardError.write(line: "appexd refused what this process sent: \(failure.error.message) \(failure.error.recoverySuggestion)")
        default:
            break
        }
        for listener in state.withLock({ Array($0.listeners.values) }) { listener(.message(message)) }
    }

    /// The link ended: the listeners hear why, once.
    package func end(_ reason: String) {
        let listeners = state.withLock { state -> [Listener] in
            guard state.ending == nil else { return [] }
            state.ending = reason
            return Array(state.listeners.values)
        }
        greeted.signal()
        for listener in listeners { listener(.ended(reason)) }
    }
}
