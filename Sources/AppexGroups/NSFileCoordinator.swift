public import Foundation
import AppexCore
import AppexLocking
import AppexSystem

/// Coordinates reading and writing of files and folders between threads and processes, as
/// Apple's `NSFileCoordinator` does; Foundation on Linux has none.
///
/// A coordinated write waits for every other coordinated access to the item, and to
/// anything inside it when it is a folder; coordinated reads wait only for writes. So a
/// reader never sees a file its writer has half written, and two processes' read-modify-
/// write cycles never interleave. The accessor runs on the calling thread once access is
/// granted, and access ends when it returns.
///
/// ```swift
/// var error: NSError?
/// NSFileCoordinator().coordinate(writingItemAt: url, options: .forReplacing, error: &error) { url in
///     try? data.write(to: url, options: .atomic)
/// }
/// ```
///
/// The locks are the kernel's, on a lock file at the root of each container, so they hold
/// between an app and its sandboxed extensions and are dropped when a process dies.
/// Coordinating again from inside an accessor, with the same coordinator, adds to what it
/// holds and never waits for itself; with a coordinator of another ``purposeIdentifier`` it
/// can wait forever, as on Apple's systems. Coordinations of one purpose in this process
/// never wait for each other (``PurposeLocks``).
///
/// File presenters (``NSFilePresenter``) hear of the coordinations as Apple's do
/// (``PresenterRound``): they are asked to save or relinquish before an access, and told
/// what changed after, those of this process and of the container's other processes
/// (``PresenterExchange``; docs/app-groups.md, "File presenters").
public final class NSFileCoordinator {
    /// How a coordinated read proceeds.
    public struct ReadingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Read without asking presenters to save first; they are still asked to relinquish.
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// Coordinate on, and hand the accessor, the item a symbolic link points to.
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Only metadata that is available at once is read.
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        /// The item is read to be uploaded: a temporary snapshot of it is made under the
        /// read's claim, which then ends, so a long upload holds up no writer. The accessor
        /// gets the snapshot, the zip of a folder (`NAME.zip`); it is removed when the
        /// accessor returns, so open it or move it away first (``UploadSnapshot``).
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// What a coordinated write intends; each waits for the item as any write does. Use one at a time.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// The item is deleted: its presenters, and those of anything inside it, are asked
        /// to make way (`accommodatePresentedItemDeletion`), and those of the folders that
        /// hold it hear of a subitem's deletion.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// The item is moved; coordinate on its old and new places at once, and report the
        /// move with ``NSFileCoordinator/item(at:didMoveTo:)``.
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// The item's contents are merged with what is there: its presenters save first.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// The item is replaced: write the new contents beside it and rename them over it
        /// (`Data.write(to:options: .atomic)`), so that even an uncoordinated reader sees
        /// the old file or the new one. Presenters hear of it as of a deletion.
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Only metadata that does not depend on the contents changes, such as a tag.
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    /// The presenter this coordinator acts for, which hears nothing of its coordinations.
    private let filePresenter: (any NSFilePresenter)?
    private let state: Locked<State>

    private struct State {
        /// What this coordinator holds while one of its accessors, or a batch, runs.
        var held: CoordinationLocks?
        /// The presenter rounds of the accesses running, innermost last.
        var rounds: [PresenterRound] = []
        /// The coordinations waiting for access, which ``cancel()`` ends.
        var waiting: [ObjectIdentifier: CoordinationCancellation] = [:]
        /// Whether ``cancel()`` was called: every later coordination fails at once.
        var cancelled = false
        /// Whether a batch (``prepare(forReadingItemsAt:options:writingItemsAt:options:error:byAccessor:)``)
        /// has asked the presenters already, for the coordinations inside it.
        var inBatch = false
        var purposeIdentifier: String
        var purposeIdentifierWasSet = false
    }

    /// A coordinator, acting for `filePresenterOrNil` if it is given: that presenter is not
    /// messaged about this coordinator's accesses, and every coordinator made for it shares
    /// its ``purposeIdentifier``.
    public init(filePresenter filePresenterOrNil: (any NSFilePresenter)? = nil) {
        filePresenter = filePresenterOrNil
        let purpose = filePresenterOrNil.map { "\(getpid())-presenter-\(UInt(bitPattern: ObjectIdentifier($0).hashValue))" } ?? UUID().uuidString
        state = Locked(State(purposeIdentifier: purpose))
    }

    // MARK: Presenters

    /// Registers `filePresenter` in this process, to hear of the coordinations made in it.
    /// Remove it with ``removeFilePresenter(_:)`` before it goes.
    public class func addFilePresenter(_ filePresenter: any NSFilePresenter) {
        FilePresenters.add(filePresenter)
    }

    /// Stops messaging `filePresenter`.
    public class func removeFilePresenter(_ filePresenter: any NSFilePresenter) {
        FilePresenters.remove(filePresenter)
    }

    /// The presenters registered in this process.
    public class var filePresenters: [any NSFilePresenter] {
        FilePresenters.all
    }

    /// What this coordinator's accesses are for: a unique string unless set, shared by the
    /// coordinators of one presenter. Accesses of one purpose in this process never wait for
    /// each other. It may be set once, to a string that is not empty, and
    /// not on a coordinator made for a presenter, as on Apple's systems, where breaking
    /// either rule raises an exception.
    public var purposeIdentifier: String {
        get { state.withLock(\.purposeIdentifier) }
        set {
            precondition(filePresenter == nil, "NSFileCoordinator: the purposeIdentifier of a coordinator made with a file presenter is the presenter's, and can't be set")
            precondition(!newValue.isEmpty, "NSFileCoordinator: a purposeIdentifier can't be empty")
            state.withLock { state in
                precondition(!state.purposeIdentifierWasSet, "NSFileCoordinator: a purposeIdentifier can be set only once")
                state.purposeIdentifier = newValue
                state.purposeIdentifierWasSet = true
            }
        }
    }

    /// Tells the presenters of `oldURL`, and of what is inside it, that it moved to `newURL`,
    /// and the presenters of the folders that held it or hold it now; the item's versions
    /// (``NSFileVersion``) move with it. Call it from the accessor of a coordinated write of
    /// both (`forMoving`), once the move is made.
    public func item(at oldURL: URL, didMoveTo newURL: URL) {
        let round = state.withLock(\.rounds.last) ?? PresenterRound([], excluding: filePresenter)
        round.itemMoved(from: oldURL, to: newURL)
        // The item's versions move with it, as Apple's do.
        do {
            try VersionStore.move(from: oldURL, to: newURL)
        } catch {
            RefusalLog.always("the versions of \(oldURL.path) did not follow it to \(newURL.path): \(error.localizedDescription)")
        }
    }

    /// Tells the presenters of the item at `url` that observe any of `attributes` that those
    /// changed, here and in the other processes of its container, as Apple's does.
    public func item(at url: URL, didChangeUbiquityAttributes attributes: Set<URLResourceKey>) {
        UbiquityNews.tell(attributes, of: url)
    }

    /// Announces a move about to be made. Apple's does something only for sandboxed apps on
    /// macOS; so does this: nothing.
    public func item(at oldURL: URL, willMoveTo newURL: URL) {}

    /// Ends every coordination of this coordinator still waiting for access, and every one
    /// it is asked for later: its accessor never runs, and it fails with
    /// `NSUserCancelledError`, as Apple's. One whose accessor runs is not affected. It may be
    /// called from any thread, and returns at once.
    public func cancel() {
        let waiting = state.withLock { state in
            state.cancelled = true
            return Array(state.waiting.values)
        }
        for cancellation in waiting { cancellation.cancel() }
    }

    // MARK: Coordinating

    /// Runs `reader` with `url` once no one is writing it, or sets `outError` and does not.
    public func coordinate(readingItemAt url: URL, options: ReadingOptions = [], error outError: NSErrorPointer,
                           byAccessor reader: (URL) -> Void) {
        let intent = NSFileAccessIntent.readingIntent(with: url, options: options)
        coordinate([intent], error: outError) { reader(intent.url) }
    }

    /// Runs `writer` with `url` once no one else is reading or writing it, or sets `outError` and does not.
    public func coordinate(writingItemAt url: URL, options: WritingOptions = [], error outError: NSErrorPointer,
                           byAccessor writer: (URL) -> Void) {
        let intent = NSFileAccessIntent.writingIntent(with: url, options: options)
        coordinate([intent], error: outError) { writer(intent.url) }
    }

    /// Runs `readerWriter` once it may read `readingURL` and write `writingURL`, both at once.
    public func coordinate(readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
                           writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
                           error outError: NSErrorPointer, byAccessor readerWriter: (URL, URL) -> Void) {
        let reading = NSFileAccessIntent.readingIntent(with: readingURL, options: readingOptions)
        let writing = NSFileAccessIntent.writingIntent(with: writingURL, options: writingOptions)
        coordinate([reading, writing], error: outError) { readerWriter(reading.url, writing.url) }
    }

    /// Runs `writer` once it may write both `url1` and `url2`, as a move from one to the other needs.
    public func coordinate(writingItemAt url1: URL, options options1: WritingOptions = [],
                           writingItemAt url2: URL, options options2: WritingOptions = [],
                           error outError: NSErrorPointer, byAccessor writer: (URL, URL) -> Void) {
        let first = NSFileAccessIntent.writingIntent(with: url1, options: options1)
        let second = NSFileAccessIntent.writingIntent(with: url2, options: options2)
        coordinate([first, second], error: outError) { writer(first.url, second.url) }
    }

    /// Takes every item of a batch at once, asking their presenters once, then runs
    /// `batchAccessor`, which coordinates each item with this coordinator and calls the
    /// completion handler it is given when done, on any thread; the items are held until then.
    public func prepare(forReadingItemsAt readingURLs: [URL], options readingOptions: ReadingOptions = [],
                        writingItemsAt writingURLs: [URL], options writingOptions: WritingOptions = [],
                        error outError: NSErrorPointer, byAccessor batchAccessor: (@escaping @Sendable () -> Void) -> Void) {
        let intents = readingURLs.map { NSFileAccessIntent.readingIntent(with: $0, options: readingOptions) }
            + writingURLs.map { NSFileAccessIntent.writingIntent(with: $0, options: writingOptions) }
        guard let access = access(intents, error: outError) else { return }
        state.withLock { $0.inBatch = true }
        let ended = Locked(false)
        nonisolated(unsafe) let coordinator = self
        batchAccessor {
            guard ended.withLock({ ended in defer { ended = true }; return !ended }) else { return }
            coordinator.state.withLock { $0.inBatch = false }
            coordinator.end(access)
        }
    }

    /// Waits for every access in `intents` without blocking the caller, then runs `accessor`
    /// on `queue` with nil, or with the error that kept it from access. Access ends when
    /// `accessor` returns.
    public func coordinate(with intents: [NSFileAccessIntent], queue: OperationQueue,
                           byAccessor accessor: @escaping @Sendable ((any Error)?) -> Void) {
        let claims = Self.claims(for: intents)
        let cancellation = waitBegins()
        nonisolated(unsafe) let coordinator = self
        nonisolated(unsafe) let excluded = filePresenter
        let purpose = purposeIdentifier
        DispatchQueue.global().async {
            var locks = CoordinationLocks(purpose: purpose)
            let round = PresenterRound(intents, excluding: excluded)
            do {
                if cancellation.isCancelled { throw CoordinationCancelled() }
                try round.relinquish(cancellation: cancellation)
                do {
                    try locks.take(claims, cancellation: cancellation)
                } catch {
                    round.giveBack()
                    throw error
                }
                round.noteItems()
            } catch {
                locks.release()
                coordinator.waitEnds(cancellation)
                queue.addOperation { accessor(Self.error(error, intents)) }
                return
            }
            let granted = locks
            queue.addOperation {
                coordinator.waitEnds(cancellation)
                if cancellation.isCancelled {
                    granted.release()
                    round.finish()
                    return accessor(Self.error(CoordinationCancelled(), intents))
                }
                let snapshots: [UploadSnapshot]
                do {
                    snapshots = try Self.snapshots(for: intents)
                } catch {
                    granted.release()
                    round.finish()
                    return accessor(Self.error(error, intents))
                }
                defer { for snapshot in snapshots { snapshot.remove() } }
                let endsFirst = Self.endsBeforeAccessor(intents)
                if endsFirst {
                    granted.release()
                    round.finish()
                }
                accessor(nil)
                if !endsFirst {
                    granted.release()
                    round.finish()
                }
            }
        }
    }

    // MARK: Access

    /// One access this coordinator was granted: its presenters' round, and whether it took
    /// the coordinator's locks, which it then lets go at its end.
    private struct Access {
        let round: PresenterRound?
        let isOutermost: Bool
    }

    /// Takes what `intents` need, runs `body`, and lets go; or sets `outError`. Reads for
    /// uploading get their snapshots first, and when every intent is one, access ends before
    /// `body` runs.
    private func coordinate(_ intents: [NSFileAccessIntent], error outError: NSErrorPointer, _ body: () -> Void) {
        guard let access = access(intents, error: outError) else { return }
        let snapshots: [UploadSnapshot]
        do {
            snapshots = try Self.snapshots(for: intents)
        } catch {
            end(access)
            outError?.pointee = Self.error(error, intents)
            return
        }
        defer { for snapshot in snapshots { snapshot.remove() } }
        if Self.endsBeforeAccessor(intents) {
            end(access)
            body()
        } else {
            body()
            end(access)
        }
    }

    /// Makes the snapshot of each read for uploading in `intents`, and points it there; or
    /// removes those made and throws why one could not be.
    private static func snapshots(for intents: [NSFileAccessIntent]) throws(UploadSnapshot.Failure) -> [UploadSnapshot] {
        var made: [UploadSnapshot] = []
        for intent in intents where intent.isForUploading {
            do {
                made.append(try UploadSnapshot(of: intent.url))
            } catch {
                for snapshot in made { snapshot.remove() }
                throw error
            }
        }
        for (intent, snapshot) in zip(intents.filter(\.isForUploading), made) { intent.use(snapshot.url) }
        return made
    }

    /// Whether every intent reads for uploading, so access may end before the accessor runs.
    private static func endsBeforeAccessor(_ intents: [NSFileAccessIntent]) -> Bool {
        !intents.isEmpty && intents.allSatisfy(\.isForUploading)
    }

    /// Takes what `intents` need, adding to what this coordinator holds, and asks their
    /// presenters to make way; or sets `outError` and returns nil.
    private func access(_ intents: [NSFileAccessIntent], error outError: NSErrorPointer) -> Access? {
        let claims = Self.claims(for: intents)
        let cancellation = waitBegins()
        defer { waitEnds(cancellation) }
        let (held, inBatch) = state.withLock { ($0.held, $0.inBatch) }
        var locks = held ?? CoordinationLocks(purpose: purposeIdentifier)
        let round = inBatch ? nil : PresenterRound(intents, excluding: filePresenter)
        do {
            if cancellation.isCancelled { throw CoordinationCancelled() }
            try round?.relinquish(cancellation: cancellation)
            try locks.take(claims, cancellation: cancellation)
        } catch {
            round?.giveBack()
            if held == nil { locks.release() } else { state.withLock { $0.held = locks } }
            outError?.pointee = Self.error(error, intents)
            return nil
        }
        round?.noteItems()
        state.withLock { state in
            state.held = locks
            if let round { state.rounds.append(round) }
        }
        return Access(round: round, isOutermost: held == nil)
    }

    /// Ends `access`: lets go of the locks it took, then gives its presenters their items
    /// back and tells them what changed.
    private func end(_ access: Access) {
        state.withLock { state in
            if let round = access.round, let index = state.rounds.lastIndex(where: { $0 === round }) { state.rounds.remove(at: index) }
            if access.isOutermost {
                state.held?.release()
                state.held = nil
            }
        }
        access.round?.finish()
    }

    private func waitBegins() -> CoordinationCancellation {
        let cancellation = CoordinationCancellation()
        let cancelled = state.withLock { state in
            state.waiting[ObjectIdentifier(cancellation)] = cancellation
            return state.cancelled
        }
        if cancelled { cancellation.cancel() }
        return cancellation
    }

    private func waitEnds(_ cancellation: CoordinationCancellation) {
        state.withLock { _ = $0.waiting.removeValue(forKey: ObjectIdentifier(cancellation)) }
    }

    private static func claims(for intents: [NSFileAccessIntent]) -> [CoordinationClaim] {
        CoordinationClaim.merged(intents.flatMap { intent in
            let item = CoordinatedItem.locate(intent.url)
            return intent.isWriting ? CoordinationClaim.writing(item) : CoordinationClaim.reading(item, isFolder: intent.url.isFolder)
        })
    }

    /// A Cocoa error that says which items could not be coordinated, and why: the user
    /// cancelled, a presenter failed to make way, or the locks could not be taken.
    private static func error(_ error: any Error, _ intents: [NSFileAccessIntent]) -> NSError {
        let items = intents.map(\.url.path).joined(separator: ", ")
        let path = intents.first?.url.path ?? ""
        if error is CoordinationCancelled {
            return NSError(domain: NSCocoaErrorDomain, code: CocoaError.userCancelled.rawValue, userInfo: [
                NSFilePathErrorKey: path,
                NSLocalizedDescriptionKey: "The coordinated access to \(items) was cancelled before it began.",
            ])
        }
        let writing = intents.contains(where: \.isWriting)
        let code = (writing ? CocoaError.fileWriteUnknown : .fileReadUnknown).rawValue
        if let failure = error as? UploadSnapshot.Failure {
            return NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileReadUnknown.rawValue, userInfo: [
                NSFilePathErrorKey: failure.item.path,
                NSLocalizedDescriptionKey: "The coordinated read of \(items) for uploading failed: \(failure).",
                NSUnderlyingErrorKey: failure.reason,
            ])
        }
        if !(error is SystemError) {
            return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: [
                NSFilePathErrorKey: path,
                NSLocalizedDescriptionKey: "A file presenter of \(items) could not make way for the coordinated access: \(error.localizedDescription)",
                NSUnderlyingErrorKey: error,
            ])
        }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: [
            NSFilePathErrorKey: path,
            NSLocalizedDescriptionKey: "Access to \(items) could not be coordinated: \(error). "
                + "Coordination locks live in the \(AppexHome.coordinationLockName) file of the item's container, or in the user's runtime folder.",
            NSUnderlyingErrorKey: error,
        ])
    }
}

extension URL {
    /// Whether a folder is at this file URL now.
    fileprivate var isFolder: Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
