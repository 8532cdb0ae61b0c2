import AppexLocking
import Foundation

/// The one thread, living as long as the process, that spawns every child that must die
/// with this process.
///
/// The kernel delivers PR_SET_PDEATHSIG when the *thread* that forked a child ends, not the
/// process. A child spawned from a connection's reader thread, or a dispatch worker that
/// goes idle and is retired, would be killed with that thread, long before this process
/// ends; ``ProcessLaunch/spawn()`` sends each such launch here.
final class LauncherThread: Sendable {
    static let shared = LauncherThread()

    private let queue = Locked<[@Sendable () -> Void]>([])
    private let work = DispatchSemaphore(value: 0)

    private init() {
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
        let result = Locked<Result<ProcessDescriptor, SystemError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        queue.withLock {
            $0.append {
                let spawned = Result { () throws(SystemError) in try launch.spawnOnThisThread() }
                result.withLock { $0 = spawned }
                done.signal()
            }
        }
        work.signal()
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
