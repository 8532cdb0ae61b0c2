/// The life of one request as its host sees it, as a value: each event says whether the
/// host should act on it, so an outcome is delivered once and only once.
///
/// ```
/// starting ──started──▶ running ──session closed──▶ session lost
///    │                     │                              │
///    └──────── completed / cancelled / interrupted ───────┴──▶ ended
/// ```
///
/// A request whose session closes without an answer waits in *session lost* for appexd to
/// say why the process ended; the host falls back to a crash after a short wait.
struct RequestLifecycle: Sendable, Hashable {
    enum Phase: Sendable, Hashable {
        case starting
        case running(session: UInt64)
        case sessionLost(session: UInt64)
        case ended
    }

    private(set) var phase = Phase.starting

    /// The daemon started the request on `session`. Returns whether to send it there: not
    /// if it already ended, as when the extension was interrupted before the answer was read.
    mutating func started(session: UInt64) -> Bool {
        guard phase == .starting else { return false }
        phase = .running(session: session)
        return true
    }

    /// The request's session closed. Returns whether to wait for the daemon's reason.
    mutating func sessionClosed() -> Bool {
        guard case .running(let session) = phase else { return false }
        phase = .sessionLost(session: session)
        return true
    }

    /// The request ended. Returns whether this is the first ending, whose outcome the host
    /// delivers; later ones are dropped.
    mutating func end() -> Bool {
        guard phase != .ended else { return false }
        phase = .ended
        return true
    }

    /// Whether the request has its outcome.
    var hasEnded: Bool { phase == .ended }

    /// The session it runs on, once started.
    var session: UInt64? {
        switch phase {
        case .running(let session), .sessionLost(let session): session
        case .starting, .ended: nil
        }
    }
}
