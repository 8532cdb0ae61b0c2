import AppexCore
import AppexIPC
import AppexSystem
import AppexWire
import Foundation
import Synchronization

/// How an app (any process that is not an extension appexd launched) asks for a group's
/// container: on a connection of its own to appexd, started if need be. appexd identifies
/// the app by the executable of the process on the other end.
enum DaemonGroupLookUp {
    /// How long to wait for appexd's answers.
    static let timeout: DispatchTimeInterval = .seconds(5)

    static func containerURL(for group: String) -> Result<URL, GroupAccessError> {
        func failure(_ reason: String) -> Result<URL, GroupAccessError> { .failure(GroupAccessError(group: group, reason: reason)) }
        let socket: FileDescriptor
        do throws(ErrorInfo) {
            socket = try DaemonConnector.connect(home: .current, startIfNeeded: true)
        } catch {
            return failure("appexd could not be reached: \(error.message) \(error.recoverySuggestion)")
        }
        let connection = Connection(socket: socket, name: "appexd")
        defer { connection.close() }
        let welcome = Mutex<Welcome?>(nil)
        let greeted = DispatchSemaphore(value: 0)
        connection.start { incoming in
            if case .welcome(let answer) = incoming.message {
                welcome.withLock { $0 = answer }
                greeted.signal()
            }
        } onClose: { _ in
            greeted.signal()
        }
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "app").lastPathComponent
        guard (try? connection.send(.hello(Hello(role: .host, name: name)))) != nil,
              greeted.wait(timeout: .now() + timeout) == .success, let version = welcome.withLock({ $0?.version }) else {
            return failure("appexd did not answer the handshake")
        }
        guard version >= WireVersion.groupContainers else {
            return failure("appexd speaks protocol version \(version), which has no app groups; restart it with this build")
        }
        do throws(ConnectionError) {
            let answer = try connection.callWaiting({ .groupContainer(GroupContainer(call: $0, groupIdentifier: group)) }, timeout: timeout)
            guard case .groupContainerResult(let result) = answer.message else { return failure("appexd answered \(answer.message.name)") }
            return result.path.isEmpty ? failure(result.reason) : .success(URL(fileURLWithPath: result.path, isDirectory: true))
        } catch {
            return failure("appexd could not be asked: \(error)")
        }
    }
}
