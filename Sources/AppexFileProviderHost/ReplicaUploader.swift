import AppexFileProvider
import AppexLocking
import AppexSystem
import Foundation
import Glibc

/// Sends what changed on the mount to the provider, in the background: items made here
/// (parents first), fields changed, then deletions. Each change is kept in the replica until
/// the provider has taken it, so one that fails is tried again, with a growing pause, and one
/// cut short by a crash or a restart is sent when the uploader next starts.
final class ReplicaUploader: Sendable {
    private let store: ReplicaStore
    private let provider: any ProviderCalls
    private let report: @Sendable (String) -> Void
    private let kicks: AsyncStream<Void>.Continuation
    private let loop: Task<Void, Never>
    /// The pause before a failed upload is tried again: it doubles, up to ``longestPause``.
    private let firstPause: Duration
    static let longestPause = Duration.seconds(60)

    /// `isBeingWritten` says whether a file is open for writing: its contents wait for the last close.
    init(store: ReplicaStore, provider: any ProviderCalls, firstPause: Duration, report: @escaping @Sendable (String) -> Void,
         isBeingWritten: @escaping @Sendable (UInt64) -> Bool) {
        self.store = store
        self.provider = provider
        self.report = report
        self.firstPause = firstPause
        let (stream, kicks) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.kicks = kicks
        let work = Work(store: store, provider: provider, report: report, isBeingWritten: isBeingWritten)
        loop = Task {
            var pause = firstPause
            for await _ in stream {
                if await work.sendAll() {
                    pause = firstPause
                } else {
                    // Something failed: try again after the pause, unless a change comes first.
                    Task { [kicks, pause] in
                        try? await Task.sleep(for: pause)
                        kicks.yield()
                    }
                    pause = min(pause * 2, Self.longestPause)
                }
            }
        }
        kicks.yield() // what an earlier run left pending
    }

    /// There is something new to send.
    func kick() {
        kicks.yield()
    }

    /// Stops sending, and waits up to `patience` for a change being sent to be answered; what
    /// is pending stays in the replica.
    func stop(patience: Duration = .seconds(5)) {
        kicks.finish()
        loop.cancel()
        let ended = DispatchSemaphore(value: 0)
        Task { [loop] in
            await loop.value
            ended.signal()
        }
        _ = ended.wait(timeout: .now() + .milliseconds(Int(patience.components.seconds * 1000)))
    }
}

/// One pass over what is pending.
private struct Work: Sendable {
    let store: ReplicaStore
    let provider: any ProviderCalls
    let report: @Sendable (String) -> Void
    let isBeingWritten: @Sendable (UInt64) -> Bool

    /// Sends everything pending; false if anything failed.
    func sendAll() async -> Bool {
        guard let (changed, deletions) = try? store.pendingWork() else { return false }
        var succeeded = true
        for entry in changed where !Task.isCancelled && !isBeingWritten(entry.node) {
            succeeded = await send(entry) && succeeded
        }
        for (identifier, version) in deletions where !Task.isCancelled {
            do {
                try await provider.delete(identifier, baseVersion: version)
                try store.finishDeletion(of: identifier, refused: false)
            } catch NSFileProviderError.noSuchItem {
                try? store.finishDeletion(of: identifier, refused: false)
            } catch NSFileProviderError.deletionRejected {
                report("\(provider.domain.rawValue): the provider kept \(identifier.rawValue), deleted here; it comes back")
                try? store.finishDeletion(of: identifier, refused: true)
            } catch {
                report("\(provider.domain.rawValue): deleting \(identifier.rawValue) failed, to be tried again: \(error)")
                try? store.recordFailure("\(error)", deletion: identifier)
                succeeded = false
            }
        }
        return succeeded
    }

    private func send(_ listed: ReplicaStore.Entry) async -> Bool {
        // Read afresh: a parent created earlier in this pass has its provider's identifier now.
        guard let entry = try? store.entry(node: listed.node) else { return true } // removed meanwhile
        // A child waits for its parent's creation, which comes first in the same pass.
        guard let parent = try? store.entry(identifier: entry.item.parent), !parent.isLocalOnly else {
            return false
        }
        let fields = entry.isLocalOnly ? ReplicaStore.createdFields(isFolder: entry.item.isFolder) : entry.pendingFields
        var snapshot: URL?
        defer { if let snapshot { try? FileManager.default.removeItem(at: snapshot) } }
        do {
            if fields.contains(.contents), !entry.item.isFolder { snapshot = try store.snapshot(of: entry.node) }
            let answer = entry.isLocalOnly
                ? try await provider.create(entry.item, fields: fields, contents: snapshot)
                : try await provider.modify(entry.item, baseVersion: NSFileProviderItemVersion(contentVersion: entry.item.contentVersion,
                                                                                               metadataVersion: entry.item.metadataVersion),
                                            changedFields: fields, contents: snapshot)
            try store.confirm(entry, answer: answer)
            return true
        } catch {
            let doing = entry.isLocalOnly ? "creating" : "sending the changes to"
            report("\(provider.domain.rawValue): \(doing) \"\(entry.item.filename)\" failed, to be tried again: \(error)")
            try? store.recordFailure("\(error)", node: entry.node)
            return false
        }
    }
}

extension ReplicaStore {
    /// A copy of `node`'s contents as they are now, for an upload: later writes don't reach it.
    /// A reflink where the file system has them.
    func snapshot(of node: UInt64) throws -> URL {
        let uploads = folder.appendingPathComponent("Uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let copy = uploads.appendingPathComponent("\(node)-\(UUID().uuidString)")
        let source = try FileDescriptor.open(contentsURL(node: node).path, flags: O_RDONLY | O_CLOEXEC)
        defer { source.close() }
        try source.copyContents(toNewFileAt: copy.path)
        return copy
    }
}
