import AppexCore
import AppexIPC
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation

/// One extension process, serving one host, as the supervisor tracks it.
struct ExtensionProcessRecord: Sendable {
    /// Where the process is in its life.
    enum Phase: Sendable, Hashable {
        /// Spawned; it must check in before the deadline.
        case launching(deadline: ContinuousClock.Instant)
        /// Checked in and serving.
        case running
        /// Told to end; killed at the deadline if still alive.
        case ending(killAt: ContinuousClock.Instant)
    }

    let sessionID: UInt64
    let installed: InstalledExtension
    let policy: ExtensionPointPolicy
    let hostID: UInt64
    let process: ProcessDescriptor
    let control: Connection
    let startedAt: ContinuousClock.Instant
    var phase: Phase
    /// The host's requests in flight, each with its deadline if the point sets one.
    var requests: [UUID: ContinuousClock.Instant?] = [:]
    /// When the last request ended, while none runs.
    var idleSince: ContinuousClock.Instant?
    /// When the host was asked to close the session, idle past its grace period
    /// (`SessionIdle`). The host's answer, or its close deadline running out, ends it; a
    /// request the host sends straight on the session meanwhile clears it.
    var idleNoticeSentAt: ContinuousClock.Instant?
    /// Whether the host has ever been asked to close the session. Never cleared: a host may
    /// read the notice after sending a request on the session and close it once that request
    /// ends, so appexd never again gives this process to a `BeginRequest`, which would name a
    /// session the host may no longer have.
    var hostWasAskedToClose = false
    /// Why the supervisor ended it, if it did: reported to the host when it exits.
    var endReason: Interruption?
    /// Set when its host went away, so appexd ended it: how many of the host's requests it
    /// had not answered.
    var hostLeftUnanswered: Int?
    /// What the extension said when it could not start.
    var launchFailure: ErrorInfo?
    /// The footprint last measured (`MemoryFootprint`): the memory the extension has written.
    var residentBytes: UInt64 = 0
    /// The cgroups that hold it, where any could be made.
    var cgroups: ProcessCgroups?
    /// Whether its host is putting a question to the user for it (a URL to confirm, files to
    /// pick). One at a time (``Supervisor/startAsking(for:)``).
    var isAskingTheUser = false
    /// The request the process named whose `RequestBegun` appexd waits for, one at a time
    /// (``Supervisor/whenRunning(_:in:_:)``).
    var awaitedRequest: AwaitedRequest?
    /// Whether it is still being moved into its cgroups (``ExtensionCgroups/confineInBackground(_:memoryLimit:processLimit:label:done:)``).
    var isBeingConfined = false

    var stateName: String {
        switch phase {
        case .launching: "launching"
        case .running: requests.isEmpty ? "idle" : "running"
        case .ending: "ending"
        }
    }

    var isEnding: Bool {
        if case .ending = phase { return true }
        return false
    }

    /// The name people know it by, for messages.
    var label: String { "\(installed.displayName) (\(installed.identifier))" }
}
