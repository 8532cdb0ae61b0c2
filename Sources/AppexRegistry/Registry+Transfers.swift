public import Foundation
import GRDB

/// The background transfers' store (docs/transfers.md): each change of a task's state is one
/// transaction, and a task's end writes its events in the transaction that makes it final, so
/// no task is lost or ended twice, whichever process stops when.
extension Registry {
    /// Adds `task` to its session, numbered after the session's last task, and returns it as
    /// stored (its times to the millisecond). The session's app must be installed.
    public func addTransfer(_ task: TransferTask) throws(RegistryError) -> TransferTask {
        try write("add a \(task.kind.rawValue) task to session \(task.sessionIdentifier)", bumpsGeneration: false) { db in
            try Self.insertTransfer(db, task)
        }
    }

    /// Inserts `task`, numbered after its session's last, and reads it back as stored.
    static func insertTransfer(_ db: Database, _ task: TransferTask) throws -> TransferTask {
        guard try String.fetchOne(db, sql: "SELECT bundleIdentifier FROM app WHERE bundleIdentifier = ?", arguments: [task.appIdentifier]) != nil else {
            throw RegistryError(.notInstalled, "no app \(task.appIdentifier) is installed to own session \(task.sessionIdentifier)",
                                hint: "a session belongs to the containing app of the process that makes it")
        }
        var stored = task
        stored.taskIdentifier = 1 + (try Int.fetchOne(db, sql: """
            SELECT MAX(taskIdentifier) FROM transferTask WHERE appIdentifier = ? AND sessionIdentifier = ?
            """, arguments: [task.appIdentifier, task.sessionIdentifier]) ?? 0)
        let request = try JSONEncoder().encode(task.request)
        try db.execute(sql: """
            INSERT INTO transferTask (id, appIdentifier, sessionIdentifier, taskIdentifier, groupIdentifier, owner, kind, request,
                bodyFile, destination, state, createdAt, resourceDeadline, sendsLaunchEvents, validator, bytesReceived, resumesFrom, notBefore)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [stored.id.uuidString, stored.appIdentifier, stored.sessionIdentifier, stored.taskIdentifier, stored.groupIdentifier,
                             stored.owner, stored.kind.rawValue, request, stored.bodyFile?.path, stored.destination?.path,
                             stored.state.rawValue, stored.createdAt, stored.resourceDeadline, stored.sendsLaunchEvents,
                             stored.validator, stored.bytesReceived, stored.resumesFrom?.uuidString, stored.notBefore])
        // As read back: the database keeps times to the millisecond.
        return try Row.fetchOne(db, sql: "SELECT * FROM transferTask WHERE id = ?", arguments: [stored.id.uuidString]).map(Self.transferTask) ?? stored
    }

    /// The task `id`, or nil if there is none (never made, or its app uninstalled).
    public func transfer(_ id: UUID) throws(RegistryError) -> TransferTask? {
        try read("read transfer \(id)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM transferTask WHERE id = ?", arguments: [id.uuidString]).map(Self.transferTask)
        }
    }

    /// The tasks of every session, or of one app's, or of one session, oldest first.
    public func transfers(appIdentifier: String? = nil, session: String? = nil) throws(RegistryError) -> [TransferTask] {
        try read("read the transfers") { db in try Self.transfers(db, appIdentifier: appIdentifier, session: session) }
    }

    /// One session's tasks and its events not yet acknowledged, read at one moment: an event
    /// comes with its task as the event left it (a `completed` event with its task ended),
    /// which two reads, with a task ending between them, would not give.
    public func transferSession(appIdentifier: String, session: String) throws(RegistryError) -> (tasks: [TransferTask], events: [TransferEvent]) {
        try read("read session \(session)") { db in
            (try Self.transfers(db, appIdentifier: appIdentifier, session: session), try Self.transferEvents(db, appIdentifier: appIdentifier, session: session))
        }
    }

    private static func transfers(_ db: Database, appIdentifier: String?, session: String?) throws -> [TransferTask] {
        try Row.fetchAll(db, sql: """
            SELECT * FROM transferTask WHERE (?1 IS NULL OR appIdentifier = ?1) AND (?2 IS NULL OR sessionIdentifier = ?2)
            ORDER BY createdAt, taskIdentifier
            """, arguments: [appIdentifier, session]).map(Self.transferTask)
    }

    /// The waiting tasks that may start at `now`, oldest first, and when the next of the
    /// others may.
    public func runnableTransfers(at now: Date) throws(RegistryError) -> (ready: [TransferTask], next: Date?) {
        try read("read the transfers to run") { db in
            let ready = try Row.fetchAll(db, sql: """
                SELECT * FROM transferTask WHERE state = 'waiting' AND (notBefore IS NULL OR notBefore <= ?) ORDER BY createdAt, taskIdentifier
                """, arguments: [now]).map(Self.transferTask)
            let next = try Date.fetchOne(db, sql: "SELECT MIN(notBefore) FROM transferTask WHERE state = 'waiting' AND notBefore > ?", arguments: [now])
            return (ready, next)
        }
    }

    /// Whether any task is still to run or running: work for the transfers' process.
    public func hasUnfinishedTransfers() throws(RegistryError) -> Bool {
        try read("look for unfinished transfers") { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM transferTask WHERE state IN ('waiting', 'running'))") ?? false
        }
    }

    /// Starts an attempt at the waiting task `id`: marks it running and counts the attempt.
    /// Returns the task as it now is, or nil if it isn't waiting (it ended, or runs already).
    public func startTransfer(_ id: UUID) throws(RegistryError) -> TransferTask? {
        try write("start transfer \(id)", bumpsGeneration: false) { db in
            try db.execute(sql: "UPDATE transferTask SET state = 'running', attempts = attempts + 1, notBefore = NULL WHERE id = ? AND state = 'waiting'",
                           arguments: [id.uuidString])
            guard db.changesCount == 1 else { return nil }
            return try Row.fetchOne(db, sql: "SELECT * FROM transferTask WHERE id = ?", arguments: [id.uuidString]).map(Self.transferTask)
        }
    }

    /// Records how far the running task `id` got.
    public func recordTransferProgress(_ id: UUID, of task: TransferTask) throws(RegistryError) {
        try write("record transfer \(id)'s progress", bumpsGeneration: false) { db in
            try db.execute(sql: """
                UPDATE transferTask SET bytesSent = ?, bytesExpectedToSend = ?, bytesReceived = ?, bytesExpectedToReceive = ?, validator = ?,
                    resumedAtOffset = COALESCE(resumedAtOffset, ?), responseHeaders = ?
                WHERE id = ? AND state = 'running'
                """, arguments: [task.bytesSent, task.bytesExpectedToSend, task.bytesReceived, task.bytesExpectedToReceive, task.validator,
                                 task.resumedAtOffset, try task.responseHeaders.map { try JSONEncoder().encode($0) }, id.uuidString])
        }
    }

    /// Puts the running task `id` back to waiting after a failed attempt, to start again at
    /// `notBefore`; false if it isn't running (cancelled meanwhile).
    @discardableResult
    public func retryTransfer(_ id: UUID, at notBefore: Date, after failure: TransferFailure) throws(RegistryError) -> Bool {
        try write("retry transfer \(id)", bumpsGeneration: false) { db in
            try db.execute(sql: "UPDATE transferTask SET state = 'waiting', notBefore = ?, error = ?, errorCode = ? WHERE id = ? AND state = 'running'",
                           arguments: [notBefore, failure.reason, failure.code.rawValue, id.uuidString])
            return db.changesCount == 1
        }
    }

    /// Ends the task `id` in `state`, with the server's answer or the failure, and writes its
    /// events (a download's file, or an upload's answer body, first, then its completion), in
    /// one transaction. A download
    /// that ends without its file may keep its bytes for its resume data until
    /// `resumableUntil`. Returns false, writing nothing, if it had already ended: a task ends once.
    @discardableResult
    public func finishTransfer(_ id: UUID, _ state: TransferTask.State, statusCode: Int? = nil, failure: TransferFailure? = nil,
                               downloadedTo location: URL? = nil, answerBody: URL? = nil, resumableUntil: Date? = nil,
                               at now: Date = Date()) throws(RegistryError) -> Bool {
        precondition(state.isFinal, "a task ends completed, failed or cancelled")
        return try write("end transfer \(id)", bumpsGeneration: false) { db in
            try db.execute(sql: """
                UPDATE transferTask SET state = ?, statusCode = COALESCE(?, statusCode), error = ?, errorCode = ?, notBefore = NULL, resumableUntil = ?
                WHERE id = ? AND state IN ('waiting', 'running')
                """, arguments: [state.rawValue, statusCode, failure?.reason, failure?.code.rawValue, resumableUntil, id.uuidString])
            guard db.changesCount == 1 else { return false }
            if let location {
                try db.execute(sql: "INSERT INTO transferEvent (taskID, kind, location, createdAt) VALUES (?, 'finishedDownloading', ?, ?)",
                               arguments: [id.uuidString, location.path, now])
            }
            if let answerBody {
                try db.execute(sql: "INSERT INTO transferEvent (taskID, kind, location, createdAt) VALUES (?, 'receivedData', ?, ?)",
                               arguments: [id.uuidString, answerBody.path, now])
            }
            try db.execute(sql: "INSERT INTO transferEvent (taskID, kind, createdAt) VALUES (?, 'completed', ?)", arguments: [id.uuidString, now])
            return true
        }
    }

    /// Puts every running task back to waiting, its attempt counted: the appexd that ran
    /// them stopped. Returns how many there were.
    @discardableResult
    public func requeueInterruptedTransfers() throws(RegistryError) -> Int {
        try write("requeue the interrupted transfers", bumpsGeneration: false) { db in
            try db.execute(sql: "UPDATE transferTask SET state = 'waiting', error = ?, errorCode = ? WHERE state = 'running'",
                           arguments: [TransferFailure.processStopped.reason, TransferFailure.processStopped.code.rawValue])
            return db.changesCount
        }
    }

    /// The events not yet acknowledged of one session, in order.
    public func transferEvents(appIdentifier: String, session: String) throws(RegistryError) -> [TransferEvent] {
        try read("read session \(session)'s events") { db in try Self.transferEvents(db, appIdentifier: appIdentifier, session: session) }
    }

    private static func transferEvents(_ db: Database, appIdentifier: String, session: String) throws -> [TransferEvent] {
        try Row.fetchAll(db, sql: """
            SELECT e.* FROM transferEvent e JOIN transferTask t ON t.id = e.taskID
            WHERE t.appIdentifier = ? AND t.sessionIdentifier = ? ORDER BY e.sequence
            """, arguments: [appIdentifier, session]).map { row in
            guard let taskID = UUID(uuidString: row["taskID"]), let kind = TransferEvent.Kind(rawValue: row["kind"]) else {
                throw DatabaseError(message: "transfer event \(row["sequence"] ?? "?") is damaged: task \(row["taskID"] ?? "?"), kind \(row["kind"] ?? "?")")
            }
            return TransferEvent(sequence: row["sequence"], taskID: taskID, kind: kind,
                                 location: (row["location"] as String?).map { URL(fileURLWithPath: $0) }, createdAt: row["createdAt"])
        }
    }

    /// The sessions that have events not yet acknowledged, of tasks made while the session
    /// sent launch events, each with its app and the number of its newest such event: whose
    /// apps appexd wakes.
    public func sessionsWithTransferEvents() throws(RegistryError) -> [(appIdentifier: String, session: String, newest: Int64)] {
        try read("read the sessions with events") { db in
            try Row.fetchAll(db, sql: """
                SELECT t.appIdentifier, t.sessionIdentifier, MAX(e.sequence) AS newest FROM transferEvent e
                JOIN transferTask t ON t.id = e.taskID WHERE t.sendsLaunchEvents
                GROUP BY t.appIdentifier, t.sessionIdentifier ORDER BY newest
                """).map { row in (row["appIdentifier"], row["sessionIdentifier"], row["newest"]) }
        }
    }

    /// Acknowledges one session's events up to `sequence`: they are delivered, and go. So do
    /// the session's ended tasks with no event left, which nothing will ask for again, but
    /// for the session's last task, which numbers the next (a task's number is never reused
    /// in its session). So a session's rows don't pile up over days of use.
    public func acknowledgeTransferEvents(appIdentifier: String, session: String, through sequence: Int64) throws(RegistryError) {
        try write("acknowledge session \(session)'s events", bumpsGeneration: false) { db in
            try db.execute(sql: """
                DELETE FROM transferEvent WHERE sequence <= ?3 AND taskID IN
                    (SELECT id FROM transferTask WHERE appIdentifier = ?1 AND sessionIdentifier = ?2)
                """, arguments: [appIdentifier, session, sequence])
            try Self.forgetDoneTransfers(db, appIdentifier: appIdentifier, session: session)
        }
    }

    /// Removes one session's ended tasks that nothing needs: their events acknowledged, no
    /// bytes kept for resume data, and not the session's last, which numbers the next.
    static func forgetDoneTransfers(_ db: Database, appIdentifier: String, session: String) throws {
        try db.execute(sql: """
            DELETE FROM transferTask WHERE appIdentifier = ?1 AND sessionIdentifier = ?2
                AND state IN ('completed', 'failed', 'cancelled') AND resumableUntil IS NULL
                AND NOT EXISTS (SELECT 1 FROM transferEvent WHERE transferEvent.taskID = transferTask.id)
                AND taskIdentifier < (SELECT MAX(taskIdentifier) FROM transferTask WHERE appIdentifier = ?1 AND sessionIdentifier = ?2)
            """, arguments: [appIdentifier, session])
    }

    static func transferTask(_ row: Row) throws -> TransferTask {
        // A row this code didn't write is refused, rather than read as some other task.
        guard let id = UUID(uuidString: row["id"]), let kind = TransferTask.Kind(rawValue: row["kind"]),
              let state = TransferTask.State(rawValue: row["state"])
        else {
            throw DatabaseError(message: "transfer task \(row["id"] ?? "?") is damaged: kind \(row["kind"] ?? "?"), state \(row["state"] ?? "?")")
        }
        let request = try JSONDecoder().decode(TransferTask.Request.self, from: row["request"] as Data)
        var task = TransferTask(
            id: id, appIdentifier: row["appIdentifier"], sessionIdentifier: row["sessionIdentifier"],
            taskIdentifier: row["taskIdentifier"], groupIdentifier: row["groupIdentifier"], owner: row["owner"],
            kind: kind, request: request,
            bodyFile: (row["bodyFile"] as String?).map { URL(fileURLWithPath: $0) },
            destination: (row["destination"] as String?).map { URL(fileURLWithPath: $0) }, createdAt: row["createdAt"])
        task.resourceDeadline = row["resourceDeadline"]
        task.sendsLaunchEvents = row["sendsLaunchEvents"]
        task.resumableUntil = row["resumableUntil"]
        task.resumesFrom = (row["resumesFrom"] as String?).flatMap(UUID.init(uuidString:))
        task.resumedAtOffset = row["resumedAtOffset"]
        task.responseHeaders = try (row["responseHeaders"] as Data?).map { try JSONDecoder().decode([TransferTask.Request.Header].self, from: $0) }
        task.state = state
        task.attempts = row["attempts"]
        task.notBefore = row["notBefore"]
        task.bytesSent = row["bytesSent"]
        task.bytesExpectedToSend = row["bytesExpectedToSend"]
        task.bytesReceived = row["bytesReceived"]
        task.bytesExpectedToReceive = row["bytesExpectedToReceive"]
        task.statusCode = row["statusCode"]
        task.validator = row["validator"]
        task.error = row["error"]
        task.errorCode = (row["errorCode"] as Int?).flatMap(URLError.Code.init(rawValue:))
        return task
    }
}
