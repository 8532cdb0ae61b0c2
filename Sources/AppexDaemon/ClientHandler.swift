import AppexCore
import AppexIPC
import AppexLocking
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation
import Synchronization

/// Serves one connected host or CLI: the handshake, then its queries and requests.
final class ClientHandler: Sendable {
    private let client: ClientRecord
    private let supervisor: Supervisor
    /// The protocol version agreed in the handshake; 0 until then.
    private let version = Atomic<UInt32>(0)
    /// The installed bundle the client runs, once found: a background session's process
    /// is known by it for as long as its connection lasts, even if the process has exited
    /// by the time appexd reads its last messages (an acknowledgement before it ends).
    private let identified = Locked<CallingBundle?>(nil)

    private init(client: ClientRecord, supervisor: Supervisor) {
        self.client = client
        self.supervisor = supervisor
    }

    /// Identifies the peer from the kernel, refuses other users, and starts serving.
    static func serve(_ socket: FileDescriptor, supervisor: Supervisor) {
        let id = supervisor.nextID()
        guard let credentials = try? PeerCredentials(of: socket) else {
            socket.close()
            return
        }
        let limits = supervisor.configuration.clientLimits
        let connection = Connection(socket: socket, name: "client \(id)",
                                    untrusted: UntrustedPeer(frameDeadline: limits.frameDeadline,
                                                             descriptors: supervisor.descriptors.account(for: credentials.processID)))
        guard credentials.userID == geteuid() else {
            try? connection.send(.failure(Failure(error: ErrorInfo(
                domain: AppexErrorDomain.runtime, code: 8,
                message: "appexd serves user \(geteuid()) only; uid \(credentials.userID) was refused",
                recoverySuggestion: "Each user runs their own appexd; connect to yours."))))
            connection.close()
            return
        }
        let record = ClientRecord(id: id, connection: connection, credentials: credentials, process: try? ProcessDescriptor(peerOf: socket),
                                  name: ProcessTree.name(of: credentials.processID) ?? "pid \(credentials.processID)")
        // The kernel hands out the lowest free number, so one this high means appexd holds
        // nearly all it may: the rest is kept for serving the clients it has.
        guard socket.rawValue < supervisor.descriptorCeiling else {
            Supervisor.refuse(record, "appexd holds \(socket.rawValue) of the \(OpenFileLimit.current) descriptors it may, and keeps the rest for the "
                              + "clients it serves; try again once some have closed")
            return
        }
        if let refusal = supervisor.admit(record) {
            Supervisor.refuse(record, refusal)
            return
        }
        let handler = ClientHandler(client: record, supervisor: supervisor)
        // On the event loop: a thousand idle clients hold no thread and no buffer each.
        connection.start(reading: .eventLoop) { incoming in
            handler.handle(incoming)
        } onClose: { closure in
            if case .protocolError(let error) = closure {
                DaemonLog.write(line: "appexd: closed \(record.name) (pid \(credentials.processID)): \(error)")
            }
            supervisor.remove(client: id)
        }
    }

    private func handle(_ incoming: IncomingMessage) {
        let message = incoming.message
        let version = self.version.load(ordering: .acquiring)
        guard version != 0 else {
            greet(message)
            return
        }
        switch message {
        case .ping(let call):
            send(.pong(call))
        case .queryExtensions(let query):
            send(answer(query))
        case .beginRequest(let request):
            do throws(ErrorInfo) {
                let (started, session) = try supervisor.begin(request, for: client)
                send(.requestStarted(started), descriptors: session.map { [$0] } ?? [])
                session?.close()
            } catch {
                send(.failure(Failure(call: request.call, error: error)))
            }
        case .endRequest(let reference), .cancelRequest(let reference):
            guard supervisor.end(reference.requestID, for: client.id) else {
                return refuse("\(message.name) named request \(reference.requestID), which is another client's")
            }
        case .closeSession(let reference):
            guard supervisor.closeSession(reference.sessionID, for: client.id) else {
                return refuse("CloseSession named session \(reference.sessionID), which is another client's")
            }
        case .requestBegun(let begun):
            guard version >= WireVersion.directRequests else {
                return refuse("RequestBegun needs protocol version \(WireVersion.directRequests); this connection speaks \(version)")
            }
            guard supervisor.begun(begun, for: client.id) else {
                return refuse("RequestBegun named session \(begun.sessionID), which is another client's")
            }
        case .listProcesses(let call):
            send(.processList(ProcessList(call: call.call, processes: supervisor.processes())))
        case .groupContainer(let query):
            guard version >= WireVersion.groupContainers else {
                return refuse("GroupContainer needs protocol version \(WireVersion.groupContainers); this connection speaks \(version)")
            }
            send(.groupContainerResult(GroupContainers.answer(query, from: caller(), home: supervisor.configuration.home)))
        case .widgetHasContent(let setting):
            guard version >= WireVersion.widgetContent else {
                return refuse("WidgetHasContent needs protocol version \(WireVersion.widgetContent); this connection speaks \(version)")
            }
            send(.widgetHasContentResult(WidgetContentSettings.answer(setting, from: caller(), registry: supervisor.registry)))
        case .transferAttach, .transferCreate, .transferCancel, .transferAcknowledge:
            guard version >= WireVersion.transfers else {
                return refuse("\(message.name) needs protocol version \(WireVersion.transfers); this connection speaks \(version)")
            }
            let caller = TransferSessions.Caller(id: client.id, name: client.name, pid: client.credentials.processID, bundle: identifiedCaller(),
                                                 hasHungUp: { [connection = client.connection] in connection.peerHasHungUp }) { [self] in
                send($0)
            }
            supervisor.transferSessions.handle(message, descriptors: incoming.descriptors, from: caller)
        default:
            refuse("\(message.name) is not something a client sends to appexd")
        }
    }

    /// The installed bundle the client process runs, found from the kernel.
    private func caller() -> Result<CallingBundle, CallingBundle.Unidentified> {
        CallingBundle.find(runningAs: client.process?.executablePath, pid: client.credentials.processID, registry: supervisor.registry)
    }

    /// ``caller()``, found once and then kept for the connection.
    private func identifiedCaller() -> Result<CallingBundle, CallingBundle.Unidentified> {
        identified.withLock { identified in
            if let identified { return .success(identified) }
            let found = caller()
            if case .success(let bundle) = found { identified = bundle }
            return found
        }
    }

    private func greet(_ message: WireMessage) {
        let agreed: UInt32
        do throws(WireError) {
            agreed = try Handshake.agree(to: message)
        } catch {
            refuse(error.message)
            return
        }
        supervisor.greeted(client: client.id, version: agreed)
        version.store(agreed, ordering: .releasing)
        send(.welcome(Welcome(version: agreed, pid: getpid(), name: "appexd")))
    }

    private func answer(_ query: QueryExtensions) -> WireMessage {
        do {
            let found: [InstalledExtension]
            if !query.identifier.isEmpty {
                found = try supervisor.registry.extension(query.identifier).map { [$0] } ?? []
            } else if query.includeDisabled {
                found = try supervisor.registry.extensions(point: query.point)
            } else {
                found = try supervisor.registry.query(point: query.point, items: query.items)
            }
            return .queryResult(QueryResult(call: query.call, extensions: found.map(Self.summary)))
        } catch {
            return .failure(Failure(call: query.call, error: ErrorInfo(domain: AppexErrorDomain.runtime, code: 2, message: "The registry could not be read: \(error)")))
        }
    }

    static func summary(_ installed: InstalledExtension) -> ExtensionSummary {
        ExtensionSummary(identifier: installed.identifier, point: installed.pointIdentifier, displayName: installed.displayName,
                         version: installed.shortVersion ?? installed.version ?? "", containingApp: installed.appIdentifier,
                         bundlePath: installed.url.path, isEnabled: installed.isEnabled,
                         javaScriptPreprocessingFile: installed.info.extensionManifest?.javaScriptPreprocessingFile ?? "")
    }

    private func send(_ message: WireMessage, descriptors: [FileDescriptor] = []) {
        do throws(ConnectionError) {
            try client.connection.send(message, descriptors: descriptors)
        } catch {
            client.connection.close()
        }
    }

    /// A protocol violation: say what, then close this connection only.
    private func refuse(_ reason: String) {
        client.refuse(code: 7, reason)
    }
}
