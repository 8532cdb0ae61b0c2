public import Foundation

extension Process {
    /// Awaits the end of this running process and returns its termination status. The
    /// waiting happens on a thread of its own (``onThread(_:)``), never on the cooperative pool.
    @discardableResult
    public func exited() async -> Int32 {
        let process = UncheckedProcess(process: self)
        _ = try? await onThread {
            process.process.waitUntilExit()
        }
        return terminationStatus
    }
}

/// A process handed to the waiting thread. Foundation's `Process` is not `Sendable`, but
/// `waitUntilExit()` and `terminationStatus` may be called from any thread.
private struct UncheckedProcess: @unchecked Sendable {
    let process: Process
}
