import Foundation
import GRDB

/// A row of `app`.
struct AppRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "app"
    var bundleIdentifier: String
    var path: String
    var version: String?
    var shortVersion: String?
    /// JSON: language → display name; the key "" holds the name for no particular language.
    var displayNames: Data
    /// The Info.plist, as an XML property list.
    var infoPlist: Data
    /// The Entitlements.plist, as an XML property list.
    var entitlements: Data
    var installedAt: Date
}

/// A row of `extension`.
struct ExtensionRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "extension"
    var bundleIdentifier: String
    var appIdentifier: String
    var pointIdentifier: String
    var path: String
    var version: String?
    var shortVersion: String?
    var displayNames: Data
    var infoPlist: Data
    var entitlements: Data
}

/// A row of `extensionPreference`: the user's choices for one extension.
struct PreferenceRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "extensionPreference"
    var extensionIdentifier: String
    var enabled: Bool
    var position: Int?
}

/// A row of `groupEntitlement`: one bundle entitled to one app group.
struct GroupEntitlementRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "groupEntitlement"
    var bundleIdentifier: String
    var appIdentifier: String
    var groupIdentifier: String
}

/// A row of `typeDeclaration`: a uniform type an installed app exports or imports.
struct TypeDeclarationRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "typeDeclaration"
    var id: Int64?
    var appIdentifier: String
    var identifier: String
    var isExported: Bool
    /// The declaration, as an XML property list in `UTExportedTypeDeclarations` form.
    var declaration: Data
}

/// A row of `pendingRemoval`.
struct PendingRemovalRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pendingRemoval"
    var path: String
}

/// A row of `extensionPoint`: an extension point an installed app declares.
struct ExtensionPointRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "extensionPoint"
    var identifier: String
    var appIdentifier: String
    /// The declaration's dictionary, as written under `AppexExtensionPoints`, as an XML property list.
    var declaration: Data
}
