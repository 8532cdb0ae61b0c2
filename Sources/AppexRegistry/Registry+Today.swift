public import Foundation
import GRDB

/// A widget the user added to the Today view.
public struct TodayWidget: Sendable, Hashable {
    /// The widget extension's bundle identifier.
    public var identifier: String
    /// The mode the user last chose for it: `compact` or `expanded`.
    public var displayMode: String
    /// Whether it has content to show, as the widget or its containing app last said
    /// (`NCWidgetController.setHasContent`); a widget without content is hidden and not launched.
    public var hasContent: Bool

    public init(identifier: String, displayMode: String, hasContent: Bool = true) {
        self.identifier = identifier
        self.displayMode = displayMode
        self.hasContent = hasContent
    }
}

/// A widget's last content as the Today view drew it: the system's snapshot.
public struct WidgetSnapshotRecord: Sendable, Hashable {
    /// The content, as the Today point encodes it (AppexToday's `WidgetContent` in JSON).
    public var content: Data
    /// When the widget sent it.
    public var takenAt: Date
    /// Whether an update since then failed, so the content may be out of date.
    public var isStale: Bool

    public init(content: Data, takenAt: Date, isStale: Bool) {
        self.content = content
        self.takenAt = takenAt
        self.isStale = isStale
    }
}

extension Registry {
    /// The Today point, whose extensions the Today view shows.
    static let todayPoint = "com.apple.widget-extension"

    /// The widgets in the Today view, in the user's order. A widget that is no longer
    /// installed keeps its place, for when it comes back, but isn't listed.
    public func todayWidgets() throws(RegistryError) -> [TodayWidget] {
        try read("read the Today view's widgets") { db in
            try Row.fetchAll(db, sql: """
                SELECT e.bundleIdentifier, t.displayMode, COALESCE(c.hasContent, 1) FROM todayWidget t
                JOIN extension e ON e.bundleIdentifier = t.extensionIdentifier
                LEFT JOIN widgetContent c ON c.extensionIdentifier = t.extensionIdentifier
                ORDER BY t.position, e.bundleIdentifier
                """).map { TodayWidget(identifier: $0[0], displayMode: $0[1], hasContent: $0[2]) }
        }
    }

    /// Adds the widget `identifier` to the Today view, at `position` (0 is the top), or last.
    public func addTodayWidget(_ identifier: String, at position: Int? = nil) throws(RegistryError) {
        try write("add \(identifier) to the Today view", bumpsGeneration: false) { db in
            let canonical = try Self.requireWidget(identifier, db)
            var order = try Self.todayOrder(db)
            guard !order.contains(where: { $0.lowercased() == canonical.lowercased() }) else {
                throw RegistryError(.conflict, "\(canonical) is already in the Today view", hint: "`appex today move \(canonical) N` changes its place")
            }
            order.insert(canonical, at: min(max(position ?? order.count, 0), order.count))
            try db.execute(sql: "INSERT INTO todayWidget (extensionIdentifier, position) VALUES (?, 0)", arguments: [canonical])
            try Self.renumber(order, db)
        }
    }

    /// Takes the widget `identifier` out of the Today view.
    public func removeTodayWidget(_ identifier: String) throws(RegistryError) {
        try write("remove \(identifier) from the Today view", bumpsGeneration: false) { db in
            try db.execute(sql: "DELETE FROM todayWidget WHERE extensionIdentifier = ?", arguments: [identifier])
            guard db.changesCount > 0 else {
                throw RegistryError(.notInstalled, "\(identifier) is not in the Today view", hint: "`appex today list` shows the widgets there")
            }
            try Self.renumber(try Self.todayOrder(db), db)
        }
    }

    /// Moves the widget `identifier` to `position` in the Today view (0 is the top).
    public func moveTodayWidget(_ identifier: String, to position: Int) throws(RegistryError) {
        try write("move \(identifier) in the Today view", bumpsGeneration: false) { db in
            var order = try Self.todayOrder(db)
            guard let index = order.firstIndex(where: { $0.lowercased() == identifier.lowercased() }) else {
                throw RegistryError(.notInstalled, "\(identifier) is not in the Today view", hint: "`appex today add \(identifier)` adds it")
            }
            let moved = order.remove(at: index)
            order.insert(moved, at: min(max(position, 0), order.count))
            try Self.renumber(order, db)
        }
    }

    /// The display modes a widget can be kept in.
    public static let todayDisplayModes = ["compact", "expanded"]

    /// Keeps the user's choice of mode, `compact` or `expanded`, for the widget `identifier`.
    public func setTodayDisplayMode(_ mode: String, for identifier: String) throws(RegistryError) {
        guard Self.todayDisplayModes.contains(mode) else {
            throw RegistryError(.invalidArgument, "\"\(mode)\" is not a display mode", hint: "a widget is compact or expanded")
        }
        try write("keep \(identifier)'s display mode", bumpsGeneration: false) { db in
            try db.execute(sql: "UPDATE todayWidget SET displayMode = ? WHERE extensionIdentifier = ?", arguments: [mode, identifier])
            guard db.changesCount > 0 else {
                throw RegistryError(.notInstalled, "\(identifier) is not in the Today view", hint: "`appex today add \(identifier)` adds it")
            }
        }
    }

    // MARK: Snapshots

    /// The widget's last snapshot, if the Today view has drawn it.
    public func widgetSnapshot(of identifier: String) throws(RegistryError) -> WidgetSnapshotRecord? {
        try read("read \(identifier)'s snapshot") { db in
            try Row.fetchOne(db, sql: "SELECT content, takenAt, isStale FROM widgetSnapshot WHERE extensionIdentifier = ?", arguments: [identifier])
                .map { WidgetSnapshotRecord(content: $0[0], takenAt: $0[1], isStale: $0[2]) }
        }
    }

    /// Replaces the widget's snapshot with `content`, taken at `date`: the update found new data.
    public func saveWidgetSnapshot(_ content: Data, of identifier: String, at date: Date = Date()) throws(RegistryError) {
        try write("save \(identifier)'s snapshot", bumpsGeneration: false) { db in
            let canonical = try Self.requireWidget(identifier, db)
            try db.execute(sql: """
                INSERT INTO widgetSnapshot (extensionIdentifier, content, takenAt, isStale) VALUES (?, ?, ?, 0)
                ON CONFLICT(extensionIdentifier) DO UPDATE SET content = excluded.content, takenAt = excluded.takenAt, isStale = 0
                """, arguments: [canonical, content, date])
        }
    }

    /// Marks the widget's snapshot stale: its update failed, so the snapshot stays, marked.
    public func markWidgetSnapshotStale(_ identifier: String) throws(RegistryError) {
        try write("mark \(identifier)'s snapshot stale", bumpsGeneration: false) { db in
            try db.execute(sql: "UPDATE widgetSnapshot SET isStale = 1 WHERE extensionIdentifier = ?", arguments: [identifier])
        }
    }

    // MARK: Content

    /// Whether the widget `identifier` has content, as it or its containing app last said;
    /// true for a widget that never said.
    public func widgetHasContent(_ identifier: String) throws(RegistryError) -> Bool {
        try read("read whether \(identifier) has content") { db in
            try Bool.fetchOne(db, sql: "SELECT hasContent FROM widgetContent WHERE extensionIdentifier = ?", arguments: [identifier]) ?? true
        }
    }

    /// Keeps whether the widget `identifier` has content to show, whether or not it is in the
    /// Today view. Without content its snapshot is no longer valid, and goes.
    public func setWidgetHasContent(_ hasContent: Bool, for identifier: String, at date: Date = Date()) throws(RegistryError) {
        try write("keep whether \(identifier) has content", bumpsGeneration: false) { db in
            let canonical = try Self.requireWidget(identifier, db)
            try db.execute(sql: """
                INSERT INTO widgetContent (extensionIdentifier, hasContent, changedAt) VALUES (?, ?, ?)
                ON CONFLICT(extensionIdentifier) DO UPDATE SET hasContent = excluded.hasContent, changedAt = excluded.changedAt
                """, arguments: [canonical, hasContent, date])
            if !hasContent {
                try db.execute(sql: "DELETE FROM widgetSnapshot WHERE extensionIdentifier = ?", arguments: [canonical])
            }
        }
    }

    // MARK: Helpers

    private static func requireWidget(_ identifier: String, _ db: Database) throws -> String {
        let canonical = try requireExtension(identifier, db)
        let point = try String.fetchOne(db, sql: "SELECT pointIdentifier FROM extension WHERE bundleIdentifier = ?", arguments: [canonical])
        guard point == todayPoint else {
            throw RegistryError(.conflict, "\(canonical) is an extension of \(point ?? "another point"), not a Today widget",
                                hint: "`appex list -p today` shows the widgets")
        }
        return canonical
    }

    private static func todayOrder(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT extensionIdentifier FROM todayWidget ORDER BY position, extensionIdentifier")
    }

    private static func renumber(_ order: [String], _ db: Database) throws {
        for (position, identifier) in order.enumerated() {
            try db.execute(sql: "UPDATE todayWidget SET position = ? WHERE extensionIdentifier = ?", arguments: [position, identifier])
        }
    }
}
