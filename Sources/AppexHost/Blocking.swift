import AppexLocking
import AppexWire
import Foundation

/// Runs async work to completion from synchronous code, for the Apple-shaped APIs that
/// block (`NSExtension(identifier:)`, `beginExtensionRequest`).
///
/// The work runs in a task while the calling thread waits. Don't call these from inside a
/// task: that parks one of the few threads Swift concurrency has, and the async
/// variants exist for that case.
enum Blocking {
    static func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws(ErrorInfo) -> Value) throws(ErrorInfo) -> Value {
        let result = Locked<Result<Value, ErrorInfo>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let outcome: Result<Value, ErrorInfo>
            do throws(ErrorInfo) { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
