public import AppexSystem
public import AppexWire

/// Why a connection ended.
public enum ConnectionClosure: Sendable, Hashable, CustomStringConvertible {
    /// The peer closed its end.
    case endOfStream
    /// This side closed it.
    case closedLocally
    /// The peer sent bytes that are not valid frames or messages.
    case protocolError(WireError)
    /// The socket failed.
    case systemError(SystemError)

    public var description: String {
        switch self {
        case .endOfStream: "the peer closed the connection"
        case .closedLocally: "closed by this side"
        case .protocolError(let error): "\(error)"
        case .systemError(let error): "\(error)"
        }
    }
}

/// A send or call that failed.
public enum ConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message could not be framed (too large, too many descriptors).
    case wire(WireError)
    /// The socket failed.
    case system(SystemError)
    /// The connection closed before the answer came.
    case closed(ConnectionClosure)
    /// The peer answered with a failure.
    case failed(ErrorInfo)

    public var description: String {
        switch self {
        case .wire(let error): "\(error)"
        case .system(let error): "\(error)"
        case .closed(let closure): "the connection closed: \(closure)"
        case .failed(let error): error.message
        }
    }
}
