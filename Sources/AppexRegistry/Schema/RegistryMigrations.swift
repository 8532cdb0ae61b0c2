import AppexCore
import GRDB

/// The registry's schema, one migration per shipped version.
///
/// A shipped migration is never edited: a change to the schema is a new migration.
/// Invariants live in the schema (`NOT NULL`, foreign keys, cascades), not only in code.
enum RegistryMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Bundle identifiers compare case-insensitively, as Apple's do: the schema says so,
            // so uniqueness holds in any case and lookups use the index.
            try db.create(table: "app") { table in
                table.primaryKey("bundleIdentifier", .text).collate(.nocase)
                table.column("path", .text).notNull().unique()
                table.column("version", .text)
                table.column("shortVersion", .text)
                table.column("displayNames", .blob).notNull()
                table.column("infoPlist", .blob).notNull()
                table.column("entitlements", .blob).notNull()
                table.column("installedAt", .datetime).notNull()
            }
            try db.create(table: "extension") { table in
                table.primaryKey("bundleIdentifier", .text).collate(.nocase)
                table.column("appIdentifier", .text).notNull().collate(.nocase).indexed()
                    .references("app", column: "bundleIdentifier", onDelete: .cascade)
                table.column("pointIdentifier", .text).notNull().indexed()
                table.column("path", .text).notNull()
                table.column("version", .text)
                table.column("shortVersion", .text)
                table.column("displayNames", .blob).notNull()
                table.column("infoPlist", .blob).notNull()
                table.column("entitlements", .blob).notNull()
            }
            // Preferences outlive an install, so a reinstall keeps the user's choices: no foreign key.
            try db.create(table: "extensionPreference") { table in
                table.primaryKey("extensionIdentifier", .text).collate(.nocase)
                table.column("enabled", .boolean).notNull().defaults(to: true)
                table.column("position", .integer)
            }
            try db.create(table: "groupEntitlement") { table in
                table.column("bundleIdentifier", .text).notNull().collate(.nocase)
                table.column("appIdentifier", .text).notNull().collate(.nocase).indexed()
                    .references("app", column: "bundleIdentifier", onDelete: .cascade)
                table.column("groupIdentifier", .text).notNull().indexed()
                table.primaryKey(["bundleIdentifier", "groupIdentifier"])
            }
            try db.create(table: "typeDeclaration") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("appIdentifier", .text).notNull().collate(.nocase).indexed()
                    .references("app", column: "bundleIdentifier", onDelete: .cascade)
                table.column("identifier", .text).notNull()
                table.column("isExported", .boolean).notNull()
                table.column("declaration", .blob).notNull()
            }
            // Folders to delete once the transaction that orphaned them has committed.
            try db.create(table: "pendingRemoval") { table in
                table.primaryKey("path", .text)
            }
            // Bumped by every change, so readers in any process can tell their caches are stale.
            try db.create(table: "generation") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("value", .integer).notNull()
            }
            try db.execute(sql: "INSERT INTO generation (id, value) VALUES (1, 0)")
        }
        migrator.registerMigration("v2: declared extension points") { db in
            // The extension points installed apps declare. An identifier is one app's, in any
            // case; the point goes when its app does.
            try db.create(table: "extensionPoint") { table in
                table.primaryKey("identifier", .text).collate(.nocase)
                table.column("appIdentifier", .text).notNull().collate(.nocase).indexed()
                    .references("app", column: "bundleIdentifier", onDelete: .cascade)
                table.column("declaration", .blob).notNull()
            }
            // Apps installed before this version declared nothing Appex read.
        }
        migrator.registerMigration("v3: picks") { db in
            // Which extensions this user picked in a host's list, and when, so hosts offer
            // them first. Like preferences, picks outlive a reinstall: no foreign key.
            try db.create(table: "extensionPick") { table in
                table.primaryKey("extensionIdentifier", .text).collate(.nocase)
                table.column("lastPickedAt", .datetime).notNull()
                table.column("pickCount", .integer).notNull().defaults(to: 0)
            }
        }
        migrator.registerMigration("v4: today") { db in
            // The widgets the user added to the Today view, in their order, each in the mode
            // the user last chose. Like preferences, the choice outlives a reinstall.
            try db.create(table: "todayWidget") { table in
                table.primaryKey("extensionIdentifier", .text).collate(.nocase)
                table.column("position", .integer).notNull()
                table.column("displayMode", .text).notNull().defaults(to: "compact")
            }
            // Each widget's last content, as the Today view drew it, with its time and whether
            // the update after it failed. It goes with the widget.
            try db.create(table: "widgetSnapshot") { table in
                table.primaryKey("extensionIdentifier", .text).collate(.nocase)
                    .references("extension", column: "bundleIdentifier", onDelete: .cascade)
                table.column("content", .blob).notNull()
                table.column("takenAt", .datetime).notNull()
                table.column("isStale", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v5: widget content") { db in
            // What a widget or its containing app last said with NCWidgetController's
            // setHasContent, for widgets that said it; the others have content. Like the
            // user's choices, it outlives a reinstall: it is about the app's data, which stays.
            try db.create(table: "widgetContent") { table in
                table.primaryKey("extensionIdentifier", .text).collate(.nocase)
                table.column("hasContent", .boolean).notNull()
                table.column("changedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v6: transfers") { db in
            // The background transfers appexd performs (docs/transfers.md), one row per task,
            // kept after the task ends until its events are acknowledged (but for a session's
            // last, which numbers the next). A session belongs to the containing app; its tasks
            // go with the app.
            try db.create(table: "transferTask") { table in
                table.primaryKey("id", .text)
                table.column("appIdentifier", .text).notNull().collate(.nocase)
                    .references("app", column: "bundleIdentifier", onDelete: .cascade)
                table.column("sessionIdentifier", .text).notNull()
                table.column("taskIdentifier", .integer).notNull()
                table.column("groupIdentifier", .text).notNull()
                table.column("owner", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("request", .blob).notNull()
                table.column("bodyFile", .text)
                table.column("destination", .text)
                table.column("state", .text).notNull()
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("notBefore", .datetime)
                table.column("bytesSent", .integer).notNull().defaults(to: 0)
                table.column("bytesExpectedToSend", .integer).notNull().defaults(to: -1)
                table.column("bytesReceived", .integer).notNull().defaults(to: 0)
                table.column("bytesExpectedToReceive", .integer).notNull().defaults(to: -1)
                table.column("statusCode", .integer)
                table.column("validator", .text)
                table.column("error", .text)
                table.column("createdAt", .datetime).notNull()
                table.column("resourceDeadline", .datetime).notNull()
                table.uniqueKey(["appIdentifier", "sessionIdentifier", "taskIdentifier"])
            }
            try db.create(index: "transferTask_state", on: "transferTask", columns: ["state", "notBefore"])
            // What a task's end leaves for the app, until it acknowledges them.
            try db.create(table: "transferEvent") { table in
                table.autoIncrementedPrimaryKey("sequence")
                table.column("taskID", .text).notNull().references("transferTask", column: "id", onDelete: .cascade)
                table.column("kind", .text).notNull()
                table.column("location", .text)
                table.column("createdAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v7: transfer error codes") { db in
            // The URLError code of a task's error, beside its reason in words.
            try db.alter(table: "transferTask") { table in
                table.add(column: "errorCode", .integer)
            }
        }
        migrator.registerMigration("v8: URL schemes") { db in
            // The URL schemes each installed app declares, which go with the app, and the app
            // that opens each scheme: the first installed that declares it, or the user's choice.
            try db.create(table: "urlScheme") { table in
                table.column("appIdentifier", .text).notNull().collate(.nocase)
                    .references("app", column: "bundleIdentifier", onDelete: .cascade)
                table.column("scheme", .text).notNull().indexed()
                table.primaryKey(["appIdentifier", "scheme"])
            }
            // No foreign key: the row outlives an upgrade, which deletes the app's row and inserts it again.
            try db.create(table: "urlSchemeHandler") { table in
                table.primaryKey("scheme", .text)
                table.column("appIdentifier", .text).notNull().collate(.nocase)
                table.column("chosen", .boolean).notNull()
            }
            // An app whose stored Info.plist no longer reads can't be looked up either; it
            // mustn't keep the registry from opening, so its schemes are left out.
            // Raw rows, not AppRecord: a column a later migration adds isn't there yet.
            for row in try Row.fetchAll(db, sql: "SELECT bundleIdentifier, infoPlist FROM app ORDER BY installedAt") {
                let identifier: String = row["bundleIdentifier"]
                guard let info = try? Registry.bundleInfo(row["infoPlist"], role: .application, identifier: identifier) else { continue }
                try Registry.recordURLSchemes(of: info, app: identifier, db)
            }
            try Registry.assignURLSchemes(db)
        }
        migrator.registerMigration("v9: waiting for a debugger") { db in
            // `once` or `always`: the extension's next launch, or each, starts stopped.
            try db.alter(table: "extensionPreference") { table in
                table.add(column: "debuggerWait", .text)
            }
        }
        migrator.registerMigration("v10: transfers that launch no app") { db in
            // 0 where the session's sessionSendsLaunchEvents was false.
            try db.alter(table: "transferTask") { table in
                table.add(column: "sendsLaunchEvents", .boolean).notNull().defaults(to: true)
            }
        }
        migrator.registerMigration("v11: resume data") { db in
            try db.alter(table: "transferTask") { table in
                // An ended download whose kept bytes wait for its resume data, until then.
                table.add(column: "resumableUntil", .datetime)
                // The ended download whose kept bytes this task took.
                table.add(column: "resumesFrom", .text)
                // Where a task made from resume data went on from, once answered.
                table.add(column: "resumedAtOffset", .integer)
                // The answer's header fields, as JSON: [{"name":…, "value":…}], in order.
                table.add(column: "responseHeaders", .blob)
            }
        }
        return migrator
    }
}
