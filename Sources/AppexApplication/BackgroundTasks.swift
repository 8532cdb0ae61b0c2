import AppexLocking
import Dispatch
import Foundation

/// The background tasks of the app, and what SIGTERM does while they run.
///
/// The first task takes SIGTERM over (a dispatch source catches it) for the rest of the
/// process's life. A SIGTERM with no task
/// running ends the app at once, as it would have; with tasks running it starts the grace
/// period. The app ends by restoring SIGTERM's default action and raising it, so whoever
/// sent it sees the app end by SIGTERM.
final class BackgroundTasks: Sendable {
    private struct State {
        var next = 1
        var running: [Int: (name: String?, expiration: (@Sendable () -> Void)?)] = [:]
        var watching: (any DispatchSourceSignal)?
        /// When SIGTERM came, if it has.
        var terminationRequested: ContinuousClock.Instant?
        var expired = false
        var gracePeriod: Duration = .seconds(25)
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "AppexApplication.BackgroundTasks")

    var gracePeriod: Duration {
        get { state.withLock { $0.gracePeriod } }
        set { state.withLock { $0.gracePeriod = newValue } }
    }

    func begin(name: String?, expiration: (@Sendable () -> Void)?) -> UIBackgroundTaskIdentifier {
        let identifier: Int? = state.withLock { state in
            guard !state.expired else { return nil }
            if state.watching == nil { state.watching = watchTermination() }
            defer { state.next += 1 }
            state.running[state.next] = (name, expiration)
            return state.next
        }
        return identifier.map(UIBackgroundTaskIdentifier.init(rawValue:)) ?? .invalid
    }

    func end(_ identifier: UIBackgroundTaskIdentifier) {
        let endNow = state.withLock { state in
            state.running[identifier.rawValue] = nil
            return state.running.isEmpty && state.terminationRequested != nil
        }
        if endNow { Self.terminate() }
    }

    var timeRemaining: TimeInterval {
        state.withLock { state in
            guard let requested = state.terminationRequested else { return .greatestFiniteMagnitude }
            let left = state.gracePeriod - (ContinuousClock.now - requested)
            return max(0, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }

    /// Watches for SIGTERM instead of letting it end the process, and returns once the
    /// watch is in place: libdispatch installs its handler on its own thread, and a SIGTERM
    /// that came before would find the default action, which ends the process as it would
    /// have ended it before the task began.
    private func watchTermination() -> any DispatchSourceSignal {
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: queue)
        source.setEventHandler { [weak self] in self?.terminationRequested() }
        source.resume()
        let deadline = ContinuousClock.now + .seconds(5)
        while !Self.isTerminationCaught, ContinuousClock.now < deadline { usleep(100) }
        return source
    }

    /// Whether a handler catches SIGTERM now.
    private static var isTerminationCaught: Bool {
        var action = sigaction()
        guard sigaction(SIGTERM, nil, &action) == 0 else { return false }
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        return handler != unsafeBitCast(SIG_DFL, to: Int.self) && handler != unsafeBitCast(SIG_IGN, to: Int.self)
    }

    private func terminationRequested() {
        let (first, endNow, grace) = state.withLock { state in
            let first = state.terminationRequested == nil
            if first { state.terminationRequested = .now }
            return (first, state.running.isEmpty, state.gracePeriod)
        }
        if endNow { Self.terminate() }
        guard first else { return }
        let nanoseconds = grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in self?.expire() }
    }

    /// The grace period is over: tells each running task, then ends the app.
    private func expire() {
        let handlers = state.withLock { state in
            state.expired = true
            return state.running.values.compactMap(\.expiration)
        }
        for handler in handlers { handler() }
        Self.terminate()
    }

    /// Ends the process as SIGTERM's default action would.
    private static func terminate() {
        signal(SIGTERM, SIG_DFL)
        kill(getpid(), SIGTERM) // to the process, since this thread may block it
    }
}
