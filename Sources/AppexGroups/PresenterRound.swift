import AppexLocking
import AppexSystem
import Foundation
import Glibc

/// The messages one coordinated access sends the presenters of its items in this process,
/// each on the presenter's own queue, as Apple's `NSFileCoordinator` sends them:
///
/// - before the coordination takes its locks, ``relinquish(cancellation:)`` asks each presenter of an item, or
///   of something inside a folder item that is read, moved, deleted or replaced, to save
///   (reads, unless `withoutChanges`, and `forMerging` writes), to relinquish the item to
///   the reader or writer, and to make way for a deletion (`forDeleting`, `forReplacing`);
///   presenters of the folders that hold a deleted item hear of it as a subitem's. The
///   access waits for every answer; an error fails it. The locks are taken after, so that a
///   presenter may save with a coordinated write of its own, as Apple's do.
/// - once they are held, ``noteItems()`` keeps what each written item is.
/// - after, ``finish()`` runs the reacquirers the presenters gave, then tells the presenters
///   of each written item that it changed, and the presenters of the folders that hold it
///   that a subitem changed or appeared, if it did: the item is compared with what it was.
/// - a move the accessor reports (``NSFileCoordinator/item(at:didMoveTo:)``) is told at once.
///
/// The coordinator's own presenter (``NSFileCoordinator/init(filePresenter:)``) hears none of it.
/// Presenters in other processes of each item's root hear the same through its
/// ``PresenterExchange``, unless the round is one such process's own, made for another's access.
final class PresenterRound: @unchecked Sendable {
    private let accesses: [Access]
    private let excluded: (any NSFilePresenter)?
    private let asksOtherProcesses: Bool
    /// The other processes asked, by root, to be told when the access ends.
    private var asked: [(exchange: PresenterExchange, sent: PresenterExchange.Sent)] = []
    /// The moves the accessor reported, by root, for the other processes.
    private var moves: [String: [PresenterMail.End.Move]] = [:]
    private let answers = Locked(Answers())
    /// Items the accessor reported moving, from and to: the move was told, and no change is.
    private var moved: Set<PresentedPath> = []
    /// What each written item was before the accessor, by its index in ``accesses``; nil
    /// for an item that wasn't there.
    private var before: [Int: FileState?] = [:]

    private struct Access {
        let item: PresentedPath
        let intent: NSFileAccessIntent
    }

    private struct Answers {
        /// Each reacquirer given, with its presenter's queue, where it runs.
        var reacquirers: [(queue: OperationQueue, reacquirer: @Sendable () -> Void)] = []
        var error: (any Error)?
        /// Whether the items were given back: a reacquirer that comes later, from a
        /// presenter that answered after a cancel, runs at once.
        var isOver = false
    }

    init(_ intents: [NSFileAccessIntent], excluding excluded: (any NSFilePresenter)?, asksOtherProcesses: Bool = true) {
        accesses = intents.map { Access(item: PresentedPath($0.url), intent: $0) }
        self.excluded = excluded
        self.asksOtherProcesses = asksOtherProcesses
    }

    // MARK: Before the accessor

    /// What a presenter is asked before an access, in order.
    private enum Ask {
        case save, relinquishToReader, relinquishToWriter, accommodateDeletion
        case accommodateSubitemDeletion(URL)
    }

    /// Asks what the accesses need of every presenter and waits for all the answers. Throws
    /// the first error a presenter gave, or ``CoordinationCancelled``, having run the
    /// reacquirers of those that relinquished.
    func relinquish(cancellation: CoordinationCancellation) throws {
        try relinquishHere(cancellation: cancellation)
        guard asksOtherProcesses else { return }
        let byRoot = Dictionary(grouping: accesses.map { (CoordinatedItem.locate($0.intent.url), $0.intent) }, by: \.0.lockFile)
        for (lockFile, entries) in byRoot.sorted(by: { $0.key < $1.key }) {
            guard let exchange = PresenterExchange.forRoot(lockFile, creating: false) else { continue }
            let items = entries.map { item, intent in
                PresenterMail.Ask.Item(path: item.components, writing: intent.isWriting,
                                       options: intent.isWriting ? intent.writingOptions.rawValue : intent.readingOptions.rawValue)
            }
            do {
                asked.append((exchange, try exchange.ask(items, cancellation: cancellation)))
            } catch {
                giveBack()
                throw error
            }
        }
    }

    /// Asks the presenters of this process.
    private func relinquishHere(cancellation: CoordinationCancellation) throws {
        let asked = FilePresenters.presenting(excluding: excluded).compactMap { presenter, item in
            let asks = accesses.flatMap { Self.asks(of: item, for: $0) }
            return asks.isEmpty ? nil : (presenter, asks)
        }
        guard !asked.isEmpty else { return }
        let group = DispatchGroup()
        for (presenter, asks) in asked {
            group.enter()
            send(asks[...], to: presenter) { group.leave() }
        }
        let done = DispatchSemaphore(value: 0)
        group.notify(queue: .global()) { done.signal() }
        do {
            try cancellation.wait(for: done) { slices in
                let names = asked.map { "\(type(of: $0.0)) of \($0.0.presentedItemURL?.path ?? "nothing")" }.joined(separator: ", ")
                RefusalLog.always("NSFileCoordinator has waited \(slices * 5) s for file presenters to answer (\(names)); each must call the block or completion handler it is given")
            }
        } catch {
            giveBack()
            throw error
        }
        if let error = answers.withLock({ $0.error }) {
            giveBack()
            throw error
        }
    }

    /// Keeps what each written item is now, once the coordination holds it.
    func noteItems() {
        for (index, access) in accesses.enumerated() where access.intent.isWriting {
            before[index] = .some(FileState(path: access.intent.url.path))
        }
    }

    private static func asks(of presented: PresentedPath, for access: Access) -> [Ask] {
        let relation = presented.relation(to: access.item)
        guard relation != .unrelated else { return [] }
        if !access.intent.isWriting {
            guard relation != .encloses else { return [] }
            return (access.intent.readingOptions.contains(.withoutChanges) ? [] : [.save]) + [.relinquishToReader]
        }
        let options = access.intent.writingOptions
        if options.contains(.forDeleting) || options.contains(.forReplacing) {
            return relation == .encloses ? [.accommodateSubitemDeletion(access.item.url)] : [.relinquishToWriter, .accommodateDeletion]
        }
        switch relation {
        case .same: return (options.contains(.forMerging) ? [.save] : []) + [.relinquishToWriter]
        case .inside: return options.contains(.forMoving) ? [.relinquishToWriter] : []
        case .encloses, .unrelated: return []
        }
    }

    /// Sends `asks` to `presenter` one after another, each once the last was answered, and
    /// then runs `done`. An error ends the sequence, and is kept.
    private func send(_ asks: ArraySlice<Ask>, to presenter: any NSFilePresenter, done: @escaping @Sendable () -> Void) {
        guard let ask = asks.first else { return done() }
        let rest = asks.dropFirst()
        nonisolated(unsafe) let presenter = presenter
        let answered = Once()
        let next: @Sendable ((any Error)?) -> Void = { [self] error in
            guard answered.first() else {
                return RefusalLog.always("a file presenter of \(presenter.presentedItemURL?.path ?? "nothing") answered one message twice; the first answer counts")
            }
            if let error {
                answers.withLock { $0.error = $0.error ?? error }
                return done()
            }
            send(rest, to: presenter, done: done)
        }
        let queue = presenter.presentedItemOperationQueue
        let relinquished: @Sendable ((@Sendable () -> Void)?) -> Void = { [self] reacquirer in
            if let reacquirer, answered.isFirstPending {
                let late = answers.withLock { answers in
                    if !answers.isOver { answers.reacquirers.append((queue, reacquirer)) }
                    return answers.isOver
                }
                if late { queue.addOperation(reacquirer) }
            }
            next(nil)
        }
        presenter.presentedItemOperationQueue.addOperation {
            switch ask {
            case .save: presenter.savePresentedItemChanges(completionHandler: next)
            case .relinquishToReader: presenter.relinquishPresentedItem(toReader: relinquished)
            case .relinquishToWriter: presenter.relinquishPresentedItem(toWriter: relinquished)
            case .accommodateDeletion: presenter.accommodatePresentedItemDeletion(completionHandler: next)
            case .accommodateSubitemDeletion(let url): presenter.accommodatePresentedSubitemDeletion(at: url, completionHandler: next)
            }
        }
    }

    /// Gives every item back, here and in the other processes asked, telling nothing: when
    /// the access fails after the presenters made way.
    func giveBack() {
        giveBackHere()
        for (exchange, sent) in asked { exchange.end(sent, moves: [], changes: []) }
        asked.removeAll()
    }

    /// Runs the reacquirers, once each, each on its presenter's queue, after what was sent
    /// there before.
    private func giveBackHere() {
        let reacquirers = answers.withLock { answers in
            defer {
                answers.reacquirers.removeAll()
                answers.isOver = true
            }
            return answers.reacquirers
        }
        for (queue, reacquirer) in reacquirers { queue.addOperation(reacquirer) }
    }

    // MARK: During and after

    /// The accessor moved `old` to `new`: presenters of it and of what is inside it move
    /// with it, and presenters of the folders that held it or now hold it hear of it.
    func itemMoved(from old: URL, to new: URL) {
        let (oldItem, newItem) = (CoordinatedItem.locate(old), CoordinatedItem.locate(new))
        if asksOtherProcesses, oldItem.lockFile == newItem.lockFile {
            moves[oldItem.lockFile, default: []].append(PresenterMail.End.Move(from: oldItem.components, to: newItem.components))
        }
        let (old, new) = (PresentedPath(old), PresentedPath(new))
        moved.formUnion([old, new])
        defer { if asksOtherProcesses { FilePresenters.publishAfterMessages() } }
        Self.tell(FilePresenters.presenting(excluding: excluded)) { presenter, item in
            switch item.relation(to: old) {
            case .same, .inside:
                let moved = item.moved(from: old, to: new).url
                return { presenter.presentedItemDidMove(to: moved) }
            case .encloses:
                return { presenter.presentedSubitem(at: old.url, didMoveTo: new.url) }
            case .unrelated:
                guard item.relation(to: new) == .encloses else { return nil }
                return { presenter.presentedSubitemDidAppear(at: new.url) }
            }
        }
    }

    /// Gives the items back, then tells what the accessor changed, here and to the other
    /// processes asked.
    func finish() {
        giveBackHere()
        var changes: [String: [PresenterMail.End.Change]] = [:]
        for (index, access) in accesses.enumerated() where !moved.contains(access.item) {
            guard let was = before[index], !access.intent.writingOptions.contains(.forDeleting),
                  let after = FileState(path: access.intent.url.path), after != was else { continue }
            tellChanged(access.intent.url, appeared: was == nil)
            let item = CoordinatedItem.locate(access.intent.url)
            changes[item.lockFile, default: []].append(PresenterMail.End.Change(path: item.components, appeared: was == nil))
        }
        for (exchange, sent) in asked {
            exchange.end(sent, moves: moves[exchange.lockFile] ?? [], changes: changes[exchange.lockFile] ?? [])
        }
        asked.removeAll()
    }

    /// Tells the presenters of `url` that it changed, and those of the folders that hold it
    /// that a subitem changed, or appeared.
    func tellChanged(_ url: URL, appeared: Bool) {
        let changed = PresentedPath(url)
        Self.tell(FilePresenters.presenting(excluding: excluded)) { presenter, item in
            switch item.relation(to: changed) {
            case .same: return { presenter.presentedItemDidChange() }
            case .encloses: return appeared ? { presenter.presentedSubitemDidAppear(at: url) } : { presenter.presentedSubitemDidChange(at: url) }
            case .inside, .unrelated: return nil
            }
        }
    }

    /// Sends each presenter the message `message` picks for it, if any, on its queue.
    private static func tell(_ presenters: [(presenter: any NSFilePresenter, item: PresentedPath)],
                             _ message: (any NSFilePresenter, PresentedPath) -> (() -> Void)?) {
        for (presenter, item) in presenters {
            guard let picked = message(presenter, item) else { continue }
            nonisolated(unsafe) let send = picked
            presenter.presentedItemOperationQueue.addOperation { send() }
        }
    }
}

/// Says yes once: whether a presenter's answer is the first to its message.
private final class Once: Sendable {
    private let answered = Locked(false)

    /// True the first time only.
    func first() -> Bool {
        answered.withLock { answered in
            defer { answered = true }
            return !answered
        }
    }

    /// Whether no answer has been counted yet.
    var isFirstPending: Bool { answered.withLock { !$0 } }
}
