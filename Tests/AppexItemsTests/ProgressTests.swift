@testable import AppexItems
import AppexCore
import Foundation
import Testing

@Suite struct ProgressTests {
    @Test func aLoadsProgressIsCompleteWhenTheHandlerRuns() async throws {
        let provider = NSItemProvider(object: "text")
        var progress: Progress?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            progress = provider.loadDataRepresentation(forTypeIdentifier: "public.plain-text") { _, _ in continuation.resume() }
        }
        let loaded = try #require(progress)
        #expect(loaded.totalUnitCount == 1)
        #expect(loaded.completedUnitCount == 1)
        #expect(loaded.isFinished)
    }

    @Test func aFailedLoadsProgressIsCompleteToo() async throws {
        var progress: Progress?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            progress = NSItemProvider().loadFileRepresentation(forTypeIdentifier: "public.data") { _, _ in continuation.resume() }
        }
        #expect(progress?.isFinished == true)
    }

    @Test func cancellingTheLoadCancelsTheHandlersProgress() async throws {
        let provider = NSItemProvider()
        let started = AsyncStream<Progress>.makeStream()
        provider.registerDataRepresentation(forTypeIdentifier: "public.jpeg", visibility: .all) { completion in
            let work = Progress(totalUnitCount: 10)
            work.cancellationHandler = { completion(nil, CancellationError()) }
            started.continuation.yield(work)
            return work
        }
        let result = await withCheckedContinuation { continuation in
            let progress = provider.loadDataRepresentation(forTypeIdentifier: "public.jpeg") { data, error in
                continuation.resume(returning: (data, error))
            }
            Task {
                var handlerProgress = started.stream.makeAsyncIterator()
                _ = await handlerProgress.next()
                progress.cancel()
            }
        }
        #expect(result.0 == nil)
        #expect(result.1 is CancellationError)
    }
}
