import AppexCore
import AppexLocking
import AppexSystem
import Foundation
import Glibc

/// This process's part in telling the file presenters of *other* processes about its
/// coordinations, and hearing of theirs, below one coordination root (a container): an
/// app's presenter hears of its extension's write as Apple's does.
///
/// There is no broker. The root's `.appex-presenters` folder holds, for each process that
/// takes part, known by a token (`PID-RANDOM`):
///
/// - `TOKEN.alive`, whose first byte the process holds locked for its life, so the others
///   can tell it is gone (the kernel drops the lock) and remove what it left;
/// - `TOKEN.items`, the paths below the root that its presenters present, while it has any;
/// - `TOKEN.inbox/`, where the others put ``PresenterMail`` messages for it.
///
/// A coordination asks each living process whose items relate to its own (``ask(_:cancellation:)``),
/// and waits for every answer; each asked process has its presenters make way as for a
/// coordination of its own (``PresenterRound``, without asking further), answers, and keeps
/// them so until the access ends (``end(_:moves:changes:)``), which says what moved and
/// changed, or its asker is gone. Answers are read on the watcher's thread; asks and ends
/// are handled in order on a queue of their own.
final class PresenterExchange: @unchecked Sendable {
    /// The root's lock file, which names the root.
    let lockFile: String
    /// This process's token.
    let token = "\(getpid())-\(String(format: "%016llx", UInt64.random(in: 0...UInt64.max)))"
    /// The root's `.appex-presenters` folder.
    private let folder: ConfinedFolder
    private let queue = DispatchQueue(label: "appex.presenter-exchange")
    private let state = Locked(State())

    private struct State {
        /// This process's `alive` file and inbox, once it takes part.
        var joined: (alive: FileDescriptor, inbox: ConfinedFolder)?
        var sequence = 0
        /// This process's asks waiting for answers, by id.
        var waiting: [String: Waiting] = [:]
        /// Others' accesses for which this process's presenters made way, by ask id.
        var pending: [String: Pending] = [:]
        /// Looks at the inbox where there is no inotify.
        var poller: (any DispatchSourceTimer)?
        /// Checks, while this process makes way for others, that they are still alive.
        var monitor: (any DispatchSourceTimer)?
    }

    private final class Waiting: Sendable {
        let answered = DispatchSemaphore(value: 0)
        let answer = Locked<PresenterMail.Answer?>(nil)
    }

    private struct Pending {
        let round: PresenterRound
        let from: String
        let cancellation: CoordinationCancellation
    }

    /// The most asks of others this process keeps at once; more are refused.
    static let maximumPending = 256
    /// The most entries of the folder or an inbox read at once.
    static let maximumEntries = 1024
    /// The largest `TOKEN.items` file read.
    static let maximumItemsSize = 64 << 10
    /// The most bytes of `TOKEN.items` files one coordination reads; the processes past it
    /// are not asked, and that is said once. Only a member of the root that floods the folder
    /// with lists reaches it.
    static let maximumItemsRead = 1 << 20

    private static let exchanges = Locked<[String: PresenterExchange]>([:])

    /// This process's exchange for the root whose lock file is `lockFile`, made if need be.
    /// With `creating`, for a process with presenters, the root's folder is made too, and nil
    /// means it can't be had, which is said; without, for a coordination, nil means no
    /// process of the root has ever presented anything, and there is no one to ask.
    static func forRoot(_ lockFile: String, creating: Bool) -> PresenterExchange? {
        exchanges.withLock { exchanges in
            if let exchange = exchanges[lockFile] { return exchange }
            do {
                let exchange = try PresenterExchange(lockFile: lockFile, creating: creating)
                exchanges[lockFile] = exchange
                return exchange
            } catch {
                if creating {
                    RefusalLog.once("presenters-\(lockFile)", "file presenters below \(lockFile) can't hear of other processes' coordinations: \(error)")
                }
                return nil
            }
        }
    }

    /// The exchange's folder in each root.
    static let folderName = ".appex-presenters"

    private init(lockFile: String, creating: Bool) throws {
        self.lockFile = lockFile
        let rootFolder = try ConfinedFolder(trusted: String(lockFile[..<(lockFile.lastIndex(of: "/") ?? lockFile.startIndex)]))
        defer { rootFolder.close() }
        folder = try rootFolder.folder(Self.folderName, creating: creating)
    }

    // MARK: Presenting

    /// Says which items below the root this process's presenters present: none removes the list.
    func publish(_ items: [[String]]) {
        let name = "\(token).items"
        guard !items.isEmpty else { return folder.removeFile(name) }
        do {
            try join()
            try PresenterMail.send(items, id: token, kind: .items, to: folder)
        } catch {
            RefusalLog.once("presenters-publish-\(lockFile)", "file presenters below \(lockFile) can't be made known to other processes: \(error)")
        }
    }

    // MARK: Asking

    /// The asks one access sent, to end when it does.
    struct Sent {
        fileprivate let asks: [(id: String, to: String)]
    }

    /// Asks every other living process whose presenters present something `items` relate
    /// to, to make way, and waits for every answer. Throws the first refusal, or
    /// ``CoordinationCancelled``, having ended what was asked.
    func ask(_ items: [PresenterMail.Ask.Item], cancellation: CoordinationCancellation) throws -> Sent {
        let targets = others().filter { _, presented in
            presented.map { presented in presented.contains { path in items.contains { Self.relate(path, $0.path) } } } ?? true
        }
        guard !targets.isEmpty else { return Sent(asks: []) }
        try join()
        var sent: [(id: String, to: String, waiting: Waiting)] = []
        for (target, _) in targets {
            let id = state.withLock { state in
                state.sequence += 1
                return "\(token)-\(state.sequence)"
            }
            let waiting = Waiting()
            state.withLock { $0.waiting[id] = waiting }
            do {
                let inbox = try folder.folder("\(target).inbox")
                defer { inbox.close() }
                try PresenterMail.send(PresenterMail.Ask(id: id, from: token, items: items), id: id, kind: .ask, to: inbox)
                sent.append((id, target, waiting))
            } catch {
                // A process that left no inbox has gone; it has nothing to make way.
                state.withLock { _ = $0.waiting.removeValue(forKey: id) }
            }
        }
        let asked = Sent(asks: sent.map { ($0.id, $0.to) })
        defer { state.withLock { state in for ask in sent { state.waiting[ask.id] = nil } } }
        do {
            for ask in sent {
                try cancellation.wait(for: ask.waiting.answered, slice: .seconds(1)) { seconds in
                    if !isAlive(ask.to) {
                        ask.waiting.answered.signal()
                        return
                    }
                    if seconds % 5 == 0 {
                        RefusalLog.always("NSFileCoordinator has waited \(seconds) s for the file presenters of process \(ask.to) to answer; each must call the block or completion handler it is given")
                    }
                }
                if let refusal = ask.waiting.answer.withLock({ $0?.error }) {
                    throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "a file presenter of process \(ask.to): \(refusal)"])
                }
            }
        } catch {
            end(asked, moves: [], changes: [])
            throw error
        }
        return asked
    }

    /// Tells each process asked that the access ended, and what it moved and changed.
    func end(_ sent: Sent, moves: [PresenterMail.End.Move], changes: [PresenterMail.End.Change]) {
        for (id, target) in sent.asks {
            guard let inbox = try? folder.folder("\(target).inbox") else { continue }
            defer { inbox.close() }
            try? PresenterMail.send(PresenterMail.End(id: id, from: token, moves: moves, changes: changes), id: id, kind: .end, to: inbox)
        }
    }

    /// Sends `news` of an item to every other living process whose presenters present it or
    /// a folder that holds it. No one answers.
    func announce(_ news: some PresenterMail.News) {
        for (target, presented) in others() where presented?.contains(where: { Self.relate($0, news.path) }) ?? true {
            guard let inbox = try? folder.folder("\(target).inbox") else { continue }
            defer { inbox.close() }
            var addressed = news
            addressed.from = token
            // Named to sort in the order sent: news of one version, gained then lost, stays in order.
            addressed.id = String(format: "%020llu-%@", DispatchTime.now().uptimeNanoseconds, token)
            try? PresenterMail.send(addressed, id: addressed.id, kind: type(of: news).kind, to: inbox)
        }
    }

    // MARK: The others

    /// Every other process that presents below the root, with its items (nil if they can't
    /// be read, which counts as presenting everything). What a gone process left is removed.
    private func others() -> [(token: String, items: [[String]]?)] {
        let entries = (try? folder.entries(limit: Self.maximumEntries)) ?? []
        var budget = Self.maximumItemsRead
        return entries.compactMap { entry in
            guard entry.name.hasSuffix(".items") else { return nil }
            let other = String(entry.name.dropLast(".items".count))
            guard other != token, PresenterMail.isToken(other) else { return nil }
            guard isAlive(other) else {
                removeLeftovers(of: other)
                return nil
            }
            guard budget > 0 else {
                RefusalLog.once("presenters-budget-\(lockFile)", "the file presenters' lists in \(folder.path) hold more than \(Self.maximumItemsRead) bytes; the processes past them are not asked to make way")
                return nil
            }
            let data = try? folder.openFile(entry.name).readContentsClosing(limit: min(budget, Self.maximumItemsSize))
            budget -= data?.count ?? Self.maximumItemsSize
            let items = data.flatMap { try? JSONDecoder().decode([[String]].self, from: $0) }?.filter(PresenterMail.isPath)
            return (other, items)
        }
    }

    /// Whether the process of `other` holds its `alive` file's lock.
    private func isAlive(_ other: String) -> Bool {
        guard let file = try? folder.openFile("\(other).alive", flags: O_RDWR) else { return false }
        defer { file.close() }
        return (try? file.tryLockByte(at: 0, .shared)) != true
    }

    /// Removes the files and inbox a gone process left.
    private func removeLeftovers(of other: String) {
        folder.removeFile("\(other).items")
        if let inbox = try? folder.folder("\(other).inbox") {
            for entry in (try? inbox.entries(limit: Self.maximumEntries)) ?? [] { inbox.removeFile(entry.name) }
            inbox.close()
        }
        _ = unlinkat(folder.descriptor.rawValue, "\(other).inbox", AT_REMOVEDIR)
        folder.removeFile("\(other).alive")
    }

    /// Whether a presenter of `presented` hears of an access of `accessed`: one holds the other.
    static func relate(_ presented: [String], _ accessed: [String]) -> Bool {
        presented.starts(with: accessed) || accessed.starts(with: presented)
    }

    // MARK: Taking part

    /// Makes this process's `alive` file, locked, and its inbox, watched; once.
    private func join() throws {
        try state.withLock { state in
            guard state.joined == nil else { return }
            // Locked before it is given its name, so no one ever finds it unlocked and takes
            // this process for gone.
            let unfinished = ".\(token).alive.unfinished"
            let alive = try folder.openFile(unfinished, flags: O_RDWR | O_CREAT | O_EXCL)
            guard try alive.tryLockByte(at: 0, .exclusive) else { throw SystemError("lock", subject: unfinished, errno: EAGAIN) }
            try folder.rename(unfinished, to: "\(token).alive")
            let inbox = try folder.folder("\(token).inbox", creating: true)
            state.joined = (alive, inbox)
            let inboxURL = URL(fileURLWithPath: inbox.path)
            if DirectoryWatcher.shared?.watch(inboxURL, name: DirectoryWatcher.anyName, { [weak self] in self?.inboxChanged() }) != true {
                // No inotify: look every 50 ms.
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now(), repeating: .milliseconds(50))
                timer.setEventHandler { [weak self] in self?.inboxChanged() }
                timer.resume()
                state.poller = timer
            }
        }
    }

    /// Reads the answers in the inbox at once, and has the asks and ends handled in order.
    private func inboxChanged() {
        guard let inbox = state.withLock({ $0.joined?.inbox }) else { return }
        let names = ((try? inbox.entries(limit: Self.maximumEntries)) ?? []).map(\.name).sorted()
        for name in names where name.hasSuffix(".answer") {
            guard let answer = PresenterMail.receive(PresenterMail.Answer.self, name, from: inbox) else { continue }
            guard let waiting = state.withLock({ $0.waiting[answer.id] }) else { continue }
            waiting.answer.withLock { $0 = answer }
            waiting.answered.signal()
        }
        if names.contains(where: { $0.hasSuffix(".ask") || $0.hasSuffix(".end") || $0.hasSuffix(".version") || $0.hasSuffix(".ubiquity") }) {
            queue.async { [self] in handleMail(in: inbox) }
        }
    }

    /// Handles each ask, end, version news and ubiquity news in the inbox, in that order.
    private func handleMail(in inbox: ConfinedFolder) {
        let names = ((try? inbox.entries(limit: Self.maximumEntries)) ?? []).map(\.name)
        for name in names.filter({ $0.hasSuffix(".ask") }).sorted() {
            if let ask = PresenterMail.receive(PresenterMail.Ask.self, name, from: inbox) { makeWay(for: ask) }
        }
        for name in names.filter({ $0.hasSuffix(".end") }).sorted() {
            if let end = PresenterMail.receive(PresenterMail.End.self, name, from: inbox) { take(end) }
        }
        for name in names.filter({ $0.hasSuffix(".version") }).sorted() {
            guard let news = PresenterMail.receive(PresenterMail.Version.self, name, from: inbox) else { continue }
            VersionNews.tellHere(news.change, news.version, of: CoordinatedItem(lockFile: lockFile, components: news.path).url)
        }
        for name in names.filter({ $0.hasSuffix(".ubiquity") }).sorted() {
            guard let news = PresenterMail.receive(PresenterMail.Ubiquity.self, name, from: inbox) else { continue }
            UbiquityNews.tellHere(Set(news.attributes.map(URLResourceKey.init(rawValue:))), of: CoordinatedItem(lockFile: lockFile, components: news.path).url)
        }
    }

    /// Has this process's presenters make way for another's access, and answers.
    private func makeWay(for ask: PresenterMail.Ask) {
        let intents = ask.items.map { item in
            let url = CoordinatedItem(lockFile: lockFile, components: item.path).url
            return item.writing
                ? NSFileAccessIntent.writingIntent(with: url, options: NSFileCoordinator.WritingOptions(rawValue: item.options))
                : NSFileAccessIntent.readingIntent(with: url, options: NSFileCoordinator.ReadingOptions(rawValue: item.options).subtracting(.resolvesSymbolicLink))
        }
        let round = PresenterRound(intents, excluding: nil, asksOtherProcesses: false)
        let cancellation = CoordinationCancellation()
        let admitted = state.withLock { state in
            guard state.pending.count < Self.maximumPending else { return false }
            state.pending[ask.id] = Pending(round: round, from: ask.from, cancellation: cancellation)
            return true
        }
        var refusal: String?
        if !admitted {
            refusal = "process \(token) already makes way for \(Self.maximumPending) accesses"
        } else {
            watchAskers()
            do {
                try round.relinquish(cancellation: cancellation)
            } catch {
                state.withLock { _ = $0.pending.removeValue(forKey: ask.id) }
                refusal = error is CoordinationCancelled ? "its asker is gone" : "\(error.localizedDescription)"
            }
        }
        do {
            let inbox = try folder.folder("\(ask.from).inbox")
            defer { inbox.close() }
            try PresenterMail.send(PresenterMail.Answer(id: ask.id, from: token, error: refusal), id: ask.id, kind: .answer, to: inbox)
        } catch {
            // The asker has gone: its access will never end, so the items come back now.
            if let pending = state.withLock({ $0.pending.removeValue(forKey: ask.id) }) { pending.round.giveBack() }
        }
    }

    /// Another's access ended: this process's presenters get their items back, and hear
    /// what moved and changed.
    private func take(_ end: PresenterMail.End) {
        let pending = state.withLock { state -> Pending? in
            guard state.pending[end.id]?.from == end.from else { return nil }
            return state.pending.removeValue(forKey: end.id)
        }
        guard let pending else { return }
        // In the order a coordination of this process tells them: moves, items back, changes.
        let url = { (path: [String]) in CoordinatedItem(lockFile: self.lockFile, components: path).url }
        for move in end.moves { pending.round.itemMoved(from: url(move.from), to: url(move.to)) }
        pending.round.giveBack()
        for change in end.changes { pending.round.tellChanged(url(change.path), appeared: change.appeared) }
        if !end.moves.isEmpty { FilePresenters.publishAfterMessages() }
    }

    /// Checks each second, while this process makes way for others, that they are alive;
    /// the items of a gone one's access come back.
    private func watchAskers() {
        state.withLock { state in
            guard state.monitor == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [weak self] in self?.dropGoneAskers() }
            timer.resume()
            state.monitor = timer
        }
    }

    private func dropGoneAskers() {
        let pending = state.withLock { $0.pending }
        for (id, ask) in pending where !isAlive(ask.from) {
            // Ends a wait for this process's presenters, which holds the queue.
            ask.cancellation.cancel()
            queue.async { [self] in
                // The end the asker sent before it ended may not have been read yet: take it
                // first, with what the access changed, rather than give the items back without.
                if let inbox = state.withLock({ $0.joined?.inbox }) { handleMail(in: inbox) }
                if let gone = state.withLock({ $0.pending.removeValue(forKey: id) }) { gone.round.giveBack() }
            }
        }
    }
}

extension FileDescriptor {
    /// Reads the file whole, up to `limit` bytes, and closes it.
    fileprivate func readContentsClosing(limit: Int) throws(SystemError) -> Data {
        defer { close() }
        return try readContents(limit: limit)
    }
}
