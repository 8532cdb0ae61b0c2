public import Foundation
import GRDB

/// Resume data (docs/transfers.md, "Resume data"): an ended download's kept bytes wait,
/// for ``TransferTask/resumeDataLifetime``, for one new download of the same app and group
/// to take them over.
extension Registry {
    /// Adds `task`, a download made from the resume data of the ended download `kept`, which
    /// gives it its request and validator and is let go of, in one transaction, so that two
    /// tasks never take the same bytes. Refused alike if `kept` is not a download of the
    /// same app, or its bytes no longer wait, so that resume data tells nothing of another
    /// app's tasks. Returns the task as stored, and the download it took over.
    public func addResumedTransfer(_ task: TransferTask, from kept: UUID, at now: Date = Date()) throws(RegistryError)
        -> (task: TransferTask, from: TransferTask) {
        try write("resume transfer \(kept)", bumpsGeneration: false) { db in
            guard let old = try Row.fetchOne(db, sql: "SELECT * FROM transferTask WHERE id = ?", arguments: [kept.uuidString]).map(Self.transferTask),
                  old.appIdentifier == task.appIdentifier, old.kind == .download, let until = old.resumableUntil, until > now
            else {
                throw RegistryError(.invalidArgument, "the resume data names no download of \(task.appIdentifier) whose bytes wait to be resumed",
                                    hint: "resume data is used once, within 7 days, by the app whose download made it; download the file again")
            }
            guard old.groupIdentifier == task.groupIdentifier else {
                throw RegistryError(.invalidArgument, "the resume data's download landed in app group \(old.groupIdentifier), not \(task.groupIdentifier)",
                                    hint: "resume it in a session whose sharedContainerIdentifier is \(old.groupIdentifier)")
            }
            try db.execute(sql: "UPDATE transferTask SET resumableUntil = NULL WHERE id = ?", arguments: [kept.uuidString])
            var resumed = task
            resumed.request = TransferTask.Request(url: old.request.url, method: old.request.method, headers: old.request.headers,
                                                   timeout: task.request.timeout)
            resumed.validator = old.validator
            resumed.resumesFrom = kept
            let stored = try Self.insertTransfer(db, resumed)
            try Self.forgetDoneTransfers(db, appIdentifier: old.appIdentifier, session: old.sessionIdentifier)
            return (stored, old)
        }
    }

    /// Lets go of the kept bytes whose resume data expired by `now`, forgetting the tasks
    /// nothing else needs, and returns them, for their `.partial` files to be removed.
    public func expireResumeData(at now: Date = Date()) throws(RegistryError) -> [TransferTask] {
        try write("expire resume data", bumpsGeneration: false) { db in
            let expired = try Row.fetchAll(db, sql: "SELECT * FROM transferTask WHERE resumableUntil <= ?", arguments: [now]).map(Self.transferTask)
            try db.execute(sql: "UPDATE transferTask SET resumableUntil = NULL WHERE resumableUntil <= ?", arguments: [now])
            for task in expired {
                try Self.forgetDoneTransfers(db, appIdentifier: task.appIdentifier, session: task.sessionIdentifier)
            }
            return expired
        }
    }
}
