import AppexHost
import AppexItems
import AppexLocking
import Foundation
import Synchronization
import Testing

/// A wait that ran out: the runtime hung where it must not.
struct TimedOut: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "no answer within \(seconds) s" }
}

/// Runs `body` and returns what it returns, or throws ``TimedOut`` after `seconds`, cancelling
/// it. A test never waits longer than that, even if `body` ignores the cancellation.
///
/// The value is moved to the caller, and no task keeps a copy: a received payload's
/// descriptors close as soon as the test lets the payload go, not once a timer task wakes.
func bounded<T: Sendable>(seconds: Double = 30, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let waiter = Waiter<T>()
    return try await withCheckedThrowingContinuation { continuation in
        waiter.wait(with: continuation)
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            waiter.resume(with: consume result)
        }
        let timer = Task {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            // The time-out first: the body, once cancelled, may end at once with its own error.
            waiter.resume(with: .failure(TimedOut(seconds: seconds)))
            work.cancel()
        }
        Task {
            await work.value
            timer.cancel()
        }
    }
}

/// A continuation resumed once, by whichever comes first.
private final class Waiter<T: Sendable>: Sendable {
    private let continuation = Locked<CheckedContinuation<T, any Error>?>(nil)

    func wait(with continuation: CheckedContinuation<T, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(with result: consuming Result<T, any Error>) {
        guard let continuation = continuation.withLock({ $0.take() }) else { return }
        continuation.resume(with: consume result)
    }
}

extension NSExtension {
    /// How a request with `items` ended, within `seconds`.
    func outcome(_ items: [NSExtensionItem], within seconds: Double = 30) async throws -> ExtensionRequestOutcome {
        try await bounded(seconds: seconds) { try await self.request(withInputItems: items) }
    }
}

/// An item with one attachment per provider.
func item(_ providers: NSItemProvider...) -> NSExtensionItem {
    let item = NSExtensionItem()
    item.attachments = providers
    return item
}

/// An item whose one attachment is `text`.
func textItem(_ text: String) -> NSExtensionItem {
    item(NSItemProvider(object: text))
}

/// Counts calls from any thread.
final class Counter: Sendable {
    private let count = Atomic(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

extension NSItemProvider {
    /// Registers `data` as `type`, visible to other processes, counting how often the handler runs.
    func register(_ data: Data, as type: String, counting counter: Counter) {
        registerDataRepresentation(forTypeIdentifier: type, visibility: .all) { completion in
            counter.increment()
            completion(data, nil)
            return nil
        }
    }
}

extension NSExtensionItem {
    /// The bytes of the first attachment's `type`, loaded within a bounded wait.
    func data(_ type: String, attachment index: Int = 0) async throws -> Data {
        let provider = try #require(attachments?.dropFirst(index).first)
        return try await bounded { try await provider.loadDataRepresentation(forTypeIdentifier: type) }
    }
}
