import ServiceLifecycle

/// Drives the supervisor: checks deadlines and memory every tick while extensions run, and
/// sleeps while none do. On shutdown it ends every extension.
struct SupervisorService: Service {
    let supervisor: Supervisor

    func run() async throws {
        await withGracefulShutdownHandler {
            var wake = supervisor.wake.stream.makeAsyncIterator()
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                if supervisor.hasProcesses {
                    try? await Task.sleep(for: supervisor.configuration.tickInterval)
                    supervisor.tick()
                } else {
                    _ = await wake.next()
                }
            }
        } onGracefulShutdown: { [supervisor] in
            supervisor.wake.continuation.yield()
        }
        supervisor.shutdown()
    }
}
