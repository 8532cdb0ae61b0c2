import ServiceLifecycle

/// Keeps the transfers' process running while the registry has transfers to perform, and
/// wakes the apps whose sessions have events for them (both checked at appexd's start and
/// every `checkInterval` after), and tells the processes attached to background sessions
/// how their tasks stand, every `pollInterval` while any is attached. Each check also lets go
/// of the downloads' kept bytes whose resume data expired.
/// The transfers' process itself goes on when appexd shuts down.
struct TransferService: Service {
    let sessions: TransferSessions
    let checkInterval: Duration
    var pollInterval: Duration = .milliseconds(250)

    func run() async {
        await cancelWhenGracefulShutdown {
            var wakes = sessions.attached.stream.makeAsyncIterator()
            var lastCheck: ContinuousClock.Instant?
            while !Task.isCancelled {
                if lastCheck.map({ ContinuousClock.now - $0 >= checkInterval }) ?? true {
                    sessions.transfers.startIfNeeded()
                    sessions.wakeApps()
                    sessions.expireResumeData()
                    lastCheck = .now
                }
                if sessions.hasAttachments {
                    sessions.poll()
                    try? await Task.sleep(for: pollInterval)
                    continue
                }
                // Until the next check, or until a process attaches. A timer cancelled
                // because a process attached must not wake the next wait.
                let timer = Task { [continuation = sessions.attached.continuation, checkInterval] in
                    guard (try? await Task.sleep(for: checkInterval)) != nil else { return }
                    continuation.yield()
                }
                _ = await wakes.next()
                timer.cancel()
            }
        }
    }
}
