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
/// say why the process ended; the host falls back to a crash after a short wait. A reason
/// appexd gives while the session is still open is held until the session closes: the
/// process may have answered just before it ended, and its answer, still unread in the
/// session, wins.
struct RequestLifecycle: Sendable, Hashable {
    enum Phase: Sendable, Hashable {
        case starting
        case running(session: UInt64)
        case sessionLost(session: UInt64)
        case ended
    }

    /// What to do with appexd's report that the request's process ended.
    enum Report: Sendable, Hashable {
        /// End the request with it now.
        case deliver
        /// Keep it until the session closes; an answer may come first.
        case holdUntilSessionCloses
        /// The request has ended already.
        case ignore
    }

    /// What to do when the request's session closes.
    enum SessionClosure: Sendable, Hashable {
        /// End the request with the interruption appexd reported earlier.
        case deliver(ExtensionInterruption)
        /// Wait for appexd to say why.
        case waitForReason
        /// The request doesn't run on a session, or has ended.
        case ignore
    }

    private(set) var phase = Phase.starting
    /// What appexd reported while the session was still open.
    private(set) var heldInterruption: ExtensionInterruption?

    /// The daemon started the request on `session`. Returns whether to send it there: not
    /// if it already ended, as when the extension was interrupted before the answer was read.
    mutating func started(session: UInt64) -> Bool {
        guard phase == .starting else { return false }
        phase = .running(session: session)
        return true
    }

    /// The request's session closed.
    mutating func sessionClosed() -> SessionClosure {
        guard case .running(let session) = phase else { return .ignore }
        phase = .sessionLost(session: session)
        return heldInterruption.map(SessionClosure.deliver) ?? .waitForReason
    }

    /// appexd reports that the request's process ended without answering, for `interruption`.
    mutating func daemonReported(_ interruption: ExtensionInterruption) -> Report {
        switch phase {
        case .starting, .sessionLost:
            return .deliver
        case .running:
            if heldInterruption == nil { heldInterruption = interruption }
            return .holdUntilSessionCloses
        case .ended:
            return .ignore
        }
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
