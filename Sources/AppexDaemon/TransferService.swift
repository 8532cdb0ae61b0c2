import AppexTransferEngine
import ServiceLifecycle

/// Runs the background transfers' engine for as long as appexd serves. On shutdown the
/// running attempts stop and their tasks wait for the next appexd, which resumes them.
struct TransferService: Service {
    let engine: TransferEngine

    func run() async {
        await cancelWhenGracefulShutdown {
            await engine.run()
        }
    }
}
