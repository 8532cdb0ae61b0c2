import AppexIPC
import ServiceLifecycle

/// Accepts hosts and CLIs on the daemon's socket until shutdown, then removes the socket.
struct ListenerService: Service {
    let listener: Listener
    let supervisor: Supervisor

    func run() async throws {
        listener.start { [supervisor] socket in
            ClientHandler.serve(socket, supervisor: supervisor)
        }
        try? await gracefulShutdown()
        listener.stop()
    }
}
