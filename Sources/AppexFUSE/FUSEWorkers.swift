import AppexLocking
import Foundation

/// The threads a ``FUSEServer`` runs its requests' tasks on, instead of Swift's cooperative pool.
///
/// A process that serves a mount may also use it, or block its pool threads in other work;
/// with the requests on the pool, a `stat` of the mount from a pool thread would wait for a
/// task that needs that same thread, and on a two-core machine two such calls deadlock the
/// process. The server's own threads keep the mount answering whatever the pool is doing.
final class FUSEWorkers: TaskExecutor, Sendable {
    private let jobs = Locked<(queue: [UnownedJob], stopping: Bool)>(([], false))
    private let waiting = DispatchSemaphore(value: 0)
    private let count: Int

    init(threads count: Int, name: String) {
        self.count = count
        for index in 0..<count {
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.queue.append(job) }
        waiting.signal()
    }

    /// Lets each thread end once the jobs queued so far have run.
    func stop() {
        jobs.withLock { $0.stopping = true }
        for _ in 0..<count { waiting.signal() }
    }

    private func work() {
        while true {
            waiting.wait()
            let next = jobs.withLock { jobs -> UnownedJob?? in
                if !jobs.queue.isEmpty { return .some(jobs.queue.removeFirst()) }
                return jobs.stopping ? .none : .some(nil)
            }
            guard let job = next else { return }
            job?.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
