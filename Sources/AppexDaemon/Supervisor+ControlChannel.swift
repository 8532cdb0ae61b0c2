import AppexCore
import AppexIPC
import AppexLocking
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation
import Synchronization

/// The extension's control channel (its descriptor 3): its greeting and check-in, the
/// failure it reports when it can't start, its requests to open URLs, its questions for its
/// app groups' containers, its requests for files the user picks, and its background sessions.
extension Supervisor {
    func handleControl(_ incoming: IncomingMessage, session: UInt64) {
        switch incoming.message {
        case .hello:
            let record = state.withLock { $0.processes[session] }
            do throws(WireError) {
                let version = try Handshake.agree(to: incoming.message)
                try? record?.control.send(.welcome(Welcome(version: version, pid: getpid(), name: "appexd")))
            } catch {
                kill(session: session) { Interruption(kind: .protocolError, message: "\($0.label) failed the handshake on its daemon channel: \(error.message)") }
            }
        case .checkIn(let checkIn):
            let impostor = state.withLock { state -> Bool in
                guard let record = state.processes[session], case .launching = record.phase else { return false }
                guard checkIn.bundleIdentifier.lowercased() == record.installed.identifier.lowercased() else { return true }
                state.processes[session]?.phase = .running
                return false
            }
            if impostor {
                kill(session: session) { Interruption(kind: .protocolError, message: "\($0.label) checked in as \(checkIn.bundleIdentifier)") }
            }
        case .failure(let failure):
            state.withLock { $0.processes[session]?.launchFailure = failure.error }
        case .openURL(let request):
            openURL(request, session: session)
        case .groupContainer(let query):
            guard let record = state.withLock({ $0.processes[session] }) else { return }
            try? record.control.send(.groupContainerResult(GroupContainers.answer(query, from: .success(CallingBundle(record.installed)), home: configuration.home)))
        case .widgetHasContent(let setting):
            guard let record = state.withLock({ $0.processes[session] }) else { return }
            try? record.control.send(.widgetHasContentResult(WidgetContentSettings.answer(setting, from: .success(CallingBundle(record.installed)), registry: registry)))
        case .pickFiles(let request):
            pickFiles(request, session: session)
        case .transferAttach, .transferCreate, .transferCancel, .transferAcknowledge:
            guard let record = state.withLock({ $0.processes[session] }) else { return }
            let caller = TransferSessions.Caller(id: session, name: record.label, pid: record.process.processID,
                                                 bundle: .success(CallingBundle(record.installed)),
                                                 hasHungUp: { [control = record.control] in control.peerHasHungUp }) { [control = record.control] in
                try? control.send($0)
            }
            transferSessions.handle(incoming.message, descriptors: incoming.descriptors, from: caller)
        default:
            kill(session: session) {
                Interruption(kind: .protocolError, message: "\($0.label) sent \(incoming.message.name) on its daemon channel, which never carries it")
            }
        }
    }
}
