import GRDB

extension Registry {
    /// Lets hosts offer the extension, or stops them (`pluginkit -e use|ignore`). The choice
    /// outlives a reinstall.
    public func setEnabled(_ enabled: Bool, extension identifier: String) throws(RegistryError) {
        try write("\(enabled ? "enable" : "disable") \(identifier)") { db in
            let canonical = try Self.requireExtension(identifier, db)
            try db.execute(sql: """
                INSERT INTO extensionPreference (extensionIdentifier, enabled) VALUES (?, ?)
                ON CONFLICT(extensionIdentifier) DO UPDATE SET enabled = excluded.enabled
                """, arguments: [canonical, enabled])
        }
    }

    /// Sets the user's order of a point's extensions: `identifiers` first, in that order, then
    /// the others by identifier. Every identifier must be an installed extension of the point.
    public func setOrder(_ identifiers: [String], point: String) throws(RegistryError) {
        try write("order the extensions of \(point)") { db in
            var canonical: [String] = []
            for identifier in identifiers {
                let id = try Self.requireExtension(identifier, db)
                let itsPoint = try String.fetchOne(db, sql: "SELECT pointIdentifier FROM extension WHERE bundleIdentifier = ?", arguments: [id])
                guard itsPoint == point else {
                    throw RegistryError(.conflict, "\(id) is an extension of \(itsPoint ?? "another point"), not \(point)", hint: "order each point's extensions separately")
                }
                guard !canonical.contains(id) else {
                    throw RegistryError(.conflict, "\(id) is listed twice", hint: "name each extension once")
                }
                canonical.append(id)
            }
            try db.execute(sql: """
                UPDATE extensionPreference SET position = NULL
                WHERE extensionIdentifier IN (SELECT bundleIdentifier FROM extension WHERE pointIdentifier = ?)
                """, arguments: [point])
            for (position, id) in canonical.enumerated() {
                try db.execute(sql: """
                    INSERT INTO extensionPreference (extensionIdentifier, enabled, position) VALUES (?, 1, ?)
                    ON CONFLICT(extensionIdentifier) DO UPDATE SET position = excluded.position
                    """, arguments: [id, position])
            }
        }
    }

    /// Makes appexd start the extension stopped, for a debugger, at its next launch (`.once`),
    /// at each (`.always`), or never again (nil). The setting outlives a reinstall.
    public func setDebuggerWait(_ wait: DebuggerWait?, extension identifier: String) throws(RegistryError) {
        try write("\(wait.map { "wait for a debugger \($0.rawValue) in" } ?? "stop waiting for a debugger in") \(identifier)") { db in
            let canonical = try Self.requireExtension(identifier, db)
            try db.execute(sql: """
                INSERT INTO extensionPreference (extensionIdentifier, enabled, debuggerWait) VALUES (?, 1, ?)
                ON CONFLICT(extensionIdentifier) DO UPDATE SET debuggerWait = excluded.debuggerWait
                """, arguments: [canonical, wait?.rawValue])
        }
    }

    /// Clears a `.once` wait for a debugger as its launch takes it; an `.always` stays.
    public func takeDebuggerWait(extension identifier: String) throws(RegistryError) {
        try write("start \(identifier) for a debugger") { db in
            try db.execute(sql: "UPDATE extensionPreference SET debuggerWait = NULL WHERE extensionIdentifier = ? AND debuggerWait = ?",
                           arguments: [identifier, DebuggerWait.once.rawValue])
        }
    }

    static func requireExtension(_ identifier: String, _ db: Database) throws -> String {
        if let id = try String.fetchOne(db, sql: "SELECT bundleIdentifier FROM extension WHERE bundleIdentifier = ?", arguments: [identifier]) {
            return id
        }
        if try String.fetchOne(db, sql: "SELECT bundleIdentifier FROM app WHERE bundleIdentifier = ?", arguments: [identifier]) != nil {
            throw RegistryError(.notInstalled, "\(identifier) is an app, not an extension", hint: "`appex info \(identifier)` lists its extensions")
        }
        throw RegistryError(.notInstalled, "no extension \(identifier) is installed", hint: "`appex list` shows the installed extensions")
    }
}
