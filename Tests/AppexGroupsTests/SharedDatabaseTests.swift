import AppexCore
import AppexSystem
import AppexTesting
import Foundation
import GRDB
import Testing

/// A SQLite database in a group container, written by two processes at once, opened as
/// docs/app-groups.md recommends (AppexGroupsHelper's `SharedDatabase`): no SQLITE_BUSY
/// reaches either. Beside it, the same moment met without a busy timeout, which fails.
@Suite(.timeLimit(.minutes(2))) final class SharedDatabaseTests {
    let container: TemporaryDirectory
    var database: String { container.url.appendingPathComponent("notes.sqlite").path }

    init() throws {
        container = try TemporaryDirectory()
        try AppexHome.prepareContainer(at: container.url)
    }

    @Test func twoProcessesWritingAtOnceGetNoBusyErrorAndLoseNothing() throws {
        // Both open the new database at the same moment, and so both make its tables.
        let helpers = try [GroupsHelper(["sqlite-add", database, "500"]), GroupsHelper(["sqlite-add", database, "500"])]
        for helper in helpers {
            #expect(helper.nextLine(within: 60) == "done")
            #expect(helper.finish() == .exited(0))
        }
        let (counter, rows) = try DatabaseQueue(path: database).read { db in
            (try Int.fetchOne(db, sql: "SELECT value FROM counter"), try Int.fetchOne(db, sql: "SELECT count(*) FROM note"))
        }
        #expect(counter == 1000)
        #expect(rows == 1000)
    }

    @Test func aWriterWaitsForAnotherProcesssWriteInsteadOfFailing() throws {
        let holder = try GroupsHelper(["sqlite-hold", database])
        #expect(holder.nextLine() == "holding")
        let writer = try GroupsHelper(["sqlite-add", database, "1"])
        #expect(writer.nextLine(within: 0.5) == nil, "it waits while the other process writes")
        holder.kill()
        #expect(writer.nextLine() == "done")
        #expect(writer.finish() == .exited(0))
        // The killed writer's transaction was rolled back; the waiting one's is there.
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM note") } == 1)
    }

    @Test func withoutABusyTimeoutTheSameMomentIsSQLITE_BUSY() throws {
        let holder = try GroupsHelper(["sqlite-hold", database])
        #expect(holder.nextLine() == "holding")
        let naive = try DatabaseQueue(path: database) // GRDB's default: no busy timeout
        #expect {
            try naive.write { try $0.execute(sql: "INSERT INTO note (writer) VALUES ('naive')") }
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_BUSY
        }
        holder.kill()
    }
}
