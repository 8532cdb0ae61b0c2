public import AppexIPC
public import AppexItems
import AppexLocking
public import AppexWire
public import Foundation

/// The extension's side of lazy loading: sends each ``LoadRequest`` on the session and
/// completes it when the host's ``LoadResult`` arrives.
///
/// If the session closes first, every waiting load fails with an error that says so.
public final class PendingLoads: Sendable {
    private struct State {
        var waiting: [UInt64: @Sendable (Result<ReceivedPayload, any Error>) -> Void] = [:]
        var nextID: UInt64 = 1
        var closedReason: String?
    }

    private let connection: Connection
    private let state = Locked(State())

    public init(connection: Connection) {
        self.connection = connection
    }

    /// The items of a request the host described, whose providers load through this session.
    public func items(_ wire: [WireItem], requestID: UUID) -> [NSExtensionItem] {
        wire.map { item in
            ItemFields.item(item, attachments: item.attachments.map {
                RemoteProvider.make($0, fetch: fetch(requestID: requestID, providerID: $0.providerID))
            })
        }
    }

    /// A fetch for ``RemoteProvider`` that loads from the host's provider `providerID` of `requestID`.
    public func fetch(requestID: UUID, providerID: UInt64) -> RemoteProvider.Fetch {
        { [self] representation, completion in
            let id = state.withLock { state -> UInt64? in
                guard state.closedReason == nil else { return nil }
                defer { state.nextID += 1 }
                state.waiting[state.nextID] = completion
                return state.nextID
            }
            guard let id else {
                completion(.failure(closedError(representation.typeIdentifier)))
                return
            }
            do throws(ConnectionError) {
                try connection.send(.loadRequest(LoadRequest(
                    loadID: id, requestID: requestID, providerID: providerID,
                    typeIdentifier: representation.typeIdentifier, kind: representation.kind)))
            } catch {
                if let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) {
                    waiting(.failure(AppexErrorDomain.runtimeError(9, "the load of \(representation.typeIdentifier) could not be sent to the host: \(error)").nsError))
                }
            }
        }
    }

    /// Completes the load `result` answers. Returns false if no load was waiting for it.
    @discardableResult
    public func receive(_ result: LoadResult, in message: IncomingMessage) -> Bool {
        guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: result.loadID) }) else { return false }
        do throws(ErrorInfo) {
            waiting(.success(try ReceivedPayload(result.payload, in: message, from: .host)))
        } catch {
            waiting(.failure(error.nsError))
        }
        return true
    }

    /// Fails every waiting load, and any later one: the session is gone.
    public func close(reason: String) {
        let waiting = state.withLock { state in
            state.closedReason = state.closedReason ?? reason
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for completion in waiting { completion(.failure(AppexErrorDomain.runtimeError(9, reason).nsError)) }
    }

    private func closedError(_ typeIdentifier: String) -> any Error {
        let reason = state.withLock { $0.closedReason } ?? "the session is closed"
        return AppexErrorDomain.runtimeError(9, "\(typeIdentifier) can't be loaded: \(reason)").nsError
    }
}
