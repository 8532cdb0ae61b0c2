import AppexSystem
import Foundation
import Synchronization

/// Spawns processes from one thread that lives as long as the daemon.
///
/// The kernel delivers PR_SET_PDEATHSIG when the *thread* that forked a child ends, not the
/// process. Spawning from a connection's reader thread would kill an extension whenever that
/// thread ended, so every spawn happens here.
final class LauncherThread: Sendable {
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let work = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in serve() }
        thread.name = "appex-launcher"
        thread.start()
    }

    private func serve() -> Never {
        while true {
            work.wait()
            let job = queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            job?()
        }
    }

    /// Spawns `launch` on the launcher thread and waits for the result.
    func spawn(_ launch: ProcessLaunch) throws(SystemError) -> ProcessDescriptor {
        let result = Mutex<Result<ProcessDescriptor, SystemError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        queue.withLock {
            $0.append {
                let spawned = Result { () throws(SystemError) in try launch.spawn() }
                result.withLock { $0 = spawned }
                done.signal()
            }
        }
        work.signal()
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
