/// What a bundle's `Entitlements.plist` asks the system for.
public struct Entitlements: Sendable, Hashable {
    /// `com.apple.security.application-groups`: the app groups whose shared container the bundle may use.
    public var applicationGroups: [String]
    /// `com.apple.security.network.client`: whether the bundle may open outgoing network connections.
    public var networkClient: Bool
    /// `com.apple.security.files.user-selected.read-only`: whether the bundle may read files the user picks.
    public var userSelectedFilesReadOnly: Bool
    /// Every entitlement as written, including ones Appex does not act on.
    public var all: [String: PropertyListValue]

    /// No entitlements at all: what a bundle without an `Entitlements.plist` gets.
    public static let none = Entitlements(applicationGroups: [], networkClient: false, userSelectedFilesReadOnly: false, all: [:])

    public init(applicationGroups: [String], networkClient: Bool, userSelectedFilesReadOnly: Bool, all: [String: PropertyListValue]) {
        self.applicationGroups = applicationGroups
        self.networkClient = networkClient
        self.userSelectedFilesReadOnly = userSelectedFilesReadOnly
        self.all = all
    }

    /// The entitlement keys Appex acts on.
    public enum Key {
        public static let applicationGroups = "com.apple.security.application-groups"
        public static let networkClient = "com.apple.security.network.client"
        public static let userSelectedFilesReadOnly = "com.apple.security.files.user-selected.read-only"
    }
}

extension Entitlements {
    /// Reads an entitlements property list, recording every problem in `diagnostics`.
    public static func read(_ plist: PropertyListValue, file: String, diagnostics: inout [Diagnostic]) -> Entitlements {
        guard let entries = plist.dictionaryValue else {
            diagnostics.append(Diagnostic(.error, "wrong-type", file: file, "is a \(plist.kindName), but an entitlements file must hold a dictionary"))
            return .none
        }
        var fields = PropertyListFields(entries, file: file)
        defer { diagnostics += fields.diagnostics }
        let groups = fields.stringList(Key.applicationGroups)
        for group in groups where !isValidGroupIdentifier(group) {
            fields.report(
                .error, "invalid-app-group", Key.applicationGroups, "\"\(group)\" is not a valid app-group identifier",
                hint: "write group. followed by a reverse-DNS name, such as group.com.example.notes"
            )
        }
        return Entitlements(
            applicationGroups: groups.filter(isValidGroupIdentifier),
            networkClient: fields.optionalBoolean(Key.networkClient) ?? false,
            userSelectedFilesReadOnly: fields.optionalBoolean(Key.userSelectedFilesReadOnly) ?? false,
            all: entries
        )
    }

    /// Whether `identifier` is `group.` followed by a reverse-DNS name; it becomes a folder name, so nothing else is allowed.
    public static func isValidGroupIdentifier(_ identifier: String) -> Bool {
        identifier.hasPrefix("group.") && identifier.count > 6 && BundleInfo.isValidIdentifier(identifier)
    }
}
