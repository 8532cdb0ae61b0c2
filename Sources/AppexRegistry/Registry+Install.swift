import AppexBundles
import AppexCore
public import Foundation
import GRDB

extension Registry {
    /// How an install treats an app that is already installed.
    public struct InstallOptions: Sendable {
        /// Whether an older `CFBundleVersion` may replace a newer one.
        public var allowDowngrade: Bool
        /// App groups that another installed app already uses and that this app may use too:
        /// the user's word that both apps come from one vendor. Apple binds a group to the
        /// team that registered it; with no signatures, Appex asks the user instead.
        public var sharedGroups: Set<String>
        /// Told each step as the install reaches it, for a progress line.
        public var progress: (@Sendable (InstallStep) -> Void)?

        public init(allowDowngrade: Bool = false, sharedGroups: Set<String> = [], progress: (@Sendable (InstallStep) -> Void)? = nil) {
            self.allowDowngrade = allowDowngrade
            self.sharedGroups = sharedGroups
            self.progress = progress
        }
    }

    /// The steps of an install, in order, for someone watching it.
    public enum InstallStep: String, Sendable, CaseIterable {
        /// Validating the app where it is.
        case validating
        /// Copying it into `Applications/`.
        case copying
        /// Validating the copy, and checking it against what is installed.
        case checking
        /// Recording it in the registry.
        case registering
        /// Making its and its extensions' containers.
        case makingContainers = "making containers"
    }

    /// Validates the app at `source`, copies it into `Applications/`, registers it and its
    /// extensions, and creates their containers.
    ///
    /// The install is atomic: the database transaction is the one commit point. A crash before
    /// it leaves the old state (and a stray copy, removed by the next install); a crash after it
    /// leaves the new state (and the old copy, removed on the next open). A newer or equal
    /// version replaces an installed one; the user's enable and order choices are kept.
    ///
    /// - Throws: ``RegistryError`` with ``RegistryError/Code/invalidBundle`` and every
    ///   diagnostic when validation fails, or another code saying what conflicts.
    @discardableResult
    public func install(appAt source: URL, options: InstallOptions = .init()) throws(RegistryError) -> InstalledApp {
        options.progress?(.validating)
        let validator = BundleValidator(points: try extensionPoints(), types: try typeGraph())
        let inspection = validator.validate(appAt: source)
        guard inspection.isValid else {
            throw RegistryError(
                .invalidBundle, "\(source.lastPathComponent) is not valid, so it was not installed",
                hint: "fix the errors listed; `appex validate` shows them", diagnostics: inspection.diagnostics
            )
        }
        let store = ApplicationStore(home: home)
        let installedURL: URL = try write("install \(source.lastPathComponent)") { db in try store.withApplicationsWritable {
            // Only a crashed install leaves a folder no app uses, so sweep only when the counts disagree.
            if store.applicationFolderCount() != (try AppRecord.fetchCount(db)) {
                store.sweepApplications(keeping: try Self.usedApplicationFolders(db))
            }
            options.progress?(.copying)
            let copy = try store.copyIn(source.standardizedFileURL)
            do {
                options.progress?(.checking)
                // Validate the copy, not only the source: it is what will run, and the source may have changed.
                let copied = validator.validate(appAt: copy)
                guard copied.isValid, let app = copied.bundle else {
                    throw RegistryError(
                        .invalidBundle, "\(source.lastPathComponent) changed while it was being installed",
                        hint: "install it again once it is finished", diagnostics: copied.diagnostics
                    )
                }
                try checkConflicts(app, options: options, db)
                try store.prepareForLoading(app.extensions.map { "\(BundleLayout.plugIns)/\($0.url.lastPathComponent)/\($0.info.executable)" },
                                            in: copy)
                options.progress?(.registering)
                let final = try store.settle(copy, identifier: app.info.identifier)
                var settled = app
                settled.url = final
                for index in settled.extensions.indices {
                    settled.extensions[index].url = final.appendingPathComponent(BundleLayout.plugIns)
                        .appendingPathComponent(settled.extensions[index].url.lastPathComponent)
                }
                try replaceRows(with: settled, db)
                return final
            } catch {
                store.remove(copy.deletingLastPathComponent().path)
                throw error
            }
        } }
        try finishPendingRemovals()
        guard let app = try app(installedAt: installedURL) else {
            throw RegistryError(.storage, "\(source.lastPathComponent) was installed but can't be read back")
        }
        options.progress?(.makingContainers)
        do {
            try store.makeContainers(for: [app.identifier] + app.extensions.map(\.identifier))
        } catch {
            throw .storage("installed \(app.identifier) but can't create its containers", error)
        }
        return app
    }

    private func checkConflicts(_ app: AppBundle, options: InstallOptions, _ db: Database) throws {
        let identifier = app.info.identifier
        if let owner = try String.fetchOne(db, sql: "SELECT appIdentifier FROM extension WHERE bundleIdentifier = ?", arguments: [identifier]) {
            throw RegistryError(.conflict, "\(identifier) is already the identifier of an extension of \(owner)", hint: "give the app its own identifier")
        }
        for plugIn in app.extensions {
            let id = plugIn.info.identifier
            if let owner = try String.fetchOne(
                db, sql: "SELECT appIdentifier FROM extension WHERE bundleIdentifier = ? AND appIdentifier != ?",
                arguments: [id, identifier])
            {
                throw RegistryError(.conflict, "the extension \(id) is already installed as part of \(owner)", hint: "uninstall \(owner) first, or rename the extension")
            }
            if try AppRecord.fetchOne(db, key: id) != nil {
                throw RegistryError(.conflict, "the extension \(id) has the identifier of an installed app", hint: "rename the extension")
            }
        }
        for point in app.info.declaredPoints {
            if let owner = try String.fetchOne(
                db, sql: "SELECT appIdentifier FROM extensionPoint WHERE identifier = ? AND appIdentifier != ?", arguments: [point.id, identifier])
            {
                throw RegistryError(.conflict, "the extension point \(point.id) is already declared by \(owner)", hint: "give the point an identifier of this app's own")
            }
        }
        try checkGroups(of: app, sharedGroups: options.sharedGroups, db)
        if let installed = try Self.installedApp(identifier, db), installed.bundleIdentifier != identifier {
            throw RegistryError(
                .conflict, "\(identifier) differs only in case from the installed \(installed.bundleIdentifier)",
                hint: "bundle identifiers compare case-insensitively, and the app's data lives under the installed spelling: keep \(installed.bundleIdentifier)"
            )
        }
        if let installed = try Self.installedApp(identifier, db), !options.allowDowngrade,
            let old = installed.version, let new = app.info.version, BundleVersion(new) < BundleVersion(old)
        {
            throw RegistryError(
                .downgrade, "\(identifier) \(new) is older than the installed \(old)",
                hint: "uninstall it first, or install with --allow-downgrade"
            )
        }
    }

    /// Refuses an app that names an app group another installed app uses, unless the user
    /// shares that group with it (`sharedGroups`): otherwise any bundle could name another
    /// vendor's group and read and write its shared container. A group this app's installed
    /// version already uses stays its own through an upgrade.
    private func checkGroups(of app: AppBundle, sharedGroups: Set<String>, _ db: Database) throws {
        let identifier = app.info.identifier
        let named = Set(app.entitlements.applicationGroups + app.extensions.flatMap(\.entitlements.applicationGroups))
        for group in named.subtracting(sharedGroups).sorted() {
            let users = try String.fetchAll(
                db, sql: "SELECT DISTINCT appIdentifier FROM groupEntitlement WHERE groupIdentifier = ? ORDER BY appIdentifier", arguments: [group])
            let others = users.filter { $0.caseInsensitiveCompare(identifier) != .orderedSame }
            guard !others.isEmpty, others.count == users.count else { continue }
            throw RegistryError(
                .conflict, "the app group \(group) belongs to \(others.joined(separator: ", ")), and \(identifier) names it too: "
                    + "it would read and write their shared container",
                hint: "if both apps come from the same vendor, install with --share-group \(group); otherwise don't install it")
        }
    }

    private func replaceRows(with app: AppBundle, _ db: Database) throws {
        let identifier = app.info.identifier
        if let installed = try Self.installedApp(identifier, db) {
            try PendingRemovalRecord(path: URL(fileURLWithPath: installed.path).deletingLastPathComponent().path).save(db)
            try installed.delete(db)
        }
        try AppRecord(
            bundleIdentifier: identifier, path: app.url.path, version: app.info.version, shortVersion: app.info.shortVersion,
            displayNames: PropertyListCoding.encode(displayNames: Self.displayNames(languages: app.localizedStrings.keys) { app.displayName(languages: $0) }),
            infoPlist: PropertyListCoding.encode(.dictionary(app.info.all)),
            entitlements: PropertyListCoding.encode(.dictionary(app.entitlements.all)), installedAt: Date()
        ).insert(db)
        for group in app.entitlements.applicationGroups {
            try GroupEntitlementRecord(bundleIdentifier: identifier, appIdentifier: identifier, groupIdentifier: group).insert(db)
        }
        try Self.recordURLSchemes(of: app.info, app: identifier, db)
        let declarations = app.info.all[ExtensionPoint.DeclarationKey.points]?.dictionaryValue ?? [:]
        for point in app.info.declaredPoints {
            try ExtensionPointRecord(identifier: point.id, appIdentifier: identifier,
                                     declaration: PropertyListCoding.encode(declarations[point.id] ?? [:])).insert(db)
        }
        for plugIn in app.extensions {
            let languages = Set(app.localizedStrings.keys).union(plugIn.localizedStrings.keys)
            try ExtensionRecord(
                bundleIdentifier: plugIn.info.identifier, appIdentifier: identifier, pointIdentifier: plugIn.manifest.pointIdentifier,
                path: plugIn.url.path, version: plugIn.info.version, shortVersion: plugIn.info.shortVersion,
                displayNames: PropertyListCoding.encode(displayNames: Self.displayNames(languages: languages) { plugIn.displayName(in: app, languages: $0) }),
                infoPlist: PropertyListCoding.encode(.dictionary(plugIn.info.all)),
                entitlements: PropertyListCoding.encode(.dictionary(plugIn.entitlements.all))
            ).insert(db)
            for group in plugIn.entitlements.applicationGroups {
                try GroupEntitlementRecord(bundleIdentifier: plugIn.info.identifier, appIdentifier: identifier, groupIdentifier: group).insert(db)
            }
            try db.execute(
                sql: "INSERT OR IGNORE INTO extensionPreference (extensionIdentifier, enabled) VALUES (?, 1)",
                arguments: [plugIn.info.identifier]
            )
        }
        for (declarations, exported) in [(app.info.exportedTypes, true), (app.info.importedTypes, false)] {
            for declaration in declarations {
                try TypeDeclarationRecord(
                    id: nil, appIdentifier: identifier, identifier: declaration.identifier, isExported: exported,
                    declaration: PropertyListCoding.encode(declaration.propertyListValue)
                ).insert(db)
            }
        }
        try Self.assignURLSchemes(db)
    }

    /// A display name for each language in `languages`, plus the "" entry for none in particular.
    static func displayNames(languages: some Sequence<String>, _ name: ([String]) -> String) -> [String: String] {
        var names = ["": name([])]
        for language in languages { names[language] = name([language]) }
        return names
    }

    /// The installed app with this identifier, compared case-insensitively as bundle identifiers are.
    static func installedApp(_ identifier: String, _ db: Database) throws -> AppRecord? {
        try AppRecord.fetchOne(db, key: identifier)
    }

    static func usedApplicationFolders(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT path FROM app").map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().lastPathComponent
        })
    }
}
