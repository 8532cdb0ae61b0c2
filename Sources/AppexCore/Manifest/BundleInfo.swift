/// A bundle's Info.plist: its identity, its executable, its names and versions, and, for an
/// extension, its `NSExtension` dictionary.
public struct BundleInfo: Sendable, Hashable {
    /// `CFBundleIdentifier`, such as `com.example.notes` or `com.example.notes.share`.
    public var identifier: String
    /// `CFBundleExecutable`: the file name of the executable inside the bundle.
    public var executable: String
    /// `CFBundleName`: the short name.
    public var name: String?
    /// `CFBundleDisplayName`, before localisation.
    public var displayName: String?
    /// `CFBundleShortVersionString`: the marketing version, such as `1.2`.
    public var shortVersion: String?
    /// `CFBundleVersion`: the build version, compared to decide whether a reinstall is newer.
    public var version: String?
    /// `CFBundleURLTypes`: the URL schemes the app opens.
    public var urlTypes: [URLType]
    /// `UTExportedTypeDeclarations`: the types this bundle owns.
    public var exportedTypes: [UTTypeDeclaration]
    /// `UTImportedTypeDeclarations`: types this bundle uses but does not own.
    public var importedTypes: [UTTypeDeclaration]
    /// The `NSExtension` dictionary, present only in an extension's Info.plist.
    public var extensionManifest: ExtensionManifest?
    /// `AppexExtensionPoints`: the extension points a containing app declares for extensions
    /// to extend (docs/extension-points.md).
    public var declaredPoints: [ExtensionPoint]
    /// Every key as written, for the points and tools that need more.
    public var all: [String: PropertyListValue]

    public init(
        identifier: String, executable: String, name: String? = nil, displayName: String? = nil,
        shortVersion: String? = nil, version: String? = nil, urlTypes: [URLType] = [],
        exportedTypes: [UTTypeDeclaration] = [], importedTypes: [UTTypeDeclaration] = [],
        extensionManifest: ExtensionManifest? = nil, declaredPoints: [ExtensionPoint] = [], all: [String: PropertyListValue] = [:]
    ) {
        self.identifier = identifier
        self.executable = executable
        self.name = name
        self.displayName = displayName
        self.shortVersion = shortVersion
        self.version = version
        self.urlTypes = urlTypes
        self.exportedTypes = exportedTypes
        self.importedTypes = importedTypes
        self.extensionManifest = extensionManifest
        self.declaredPoints = declaredPoints
        self.all = all
    }

    /// The URL schemes `urlTypes` declare, in lower case, as they are matched: a URL's
    /// scheme is case-insensitive (RFC 3986).
    public var urlSchemes: Set<String> {
        Set(urlTypes.flatMap(\.schemes).map { $0.lowercased() })
    }
}

extension BundleInfo {
    /// Which kind of bundle an Info.plist belongs to; an extension must have `NSExtension`.
    public enum Role: Sendable {
        case application
        case appExtension
    }

    /// Reads an Info.plist, recording every problem in `diagnostics`. Returns `nil` only when the
    /// plist is not a dictionary, or an extension's has no usable `NSExtension`; a missing
    /// identifier or executable is left empty, and the diagnostics say so.
    public static func read(
        _ plist: PropertyListValue, role: Role, file: String, diagnostics: inout [Diagnostic]
    ) -> BundleInfo? {
        guard let entries = plist.dictionaryValue else {
            diagnostics.append(Diagnostic(
                .error, "wrong-type", file: file, "is a \(plist.kindName), but an Info.plist must hold a dictionary"
            ))
            return nil
        }
        var fields = PropertyListFields(entries, file: file)
        defer { diagnostics += fields.diagnostics }
        let identifier = fields.requiredString("CFBundleIdentifier", hint: "give the bundle a reverse-DNS identifier, such as com.example.notes")
        if let identifier, !isValidIdentifier(identifier) {
            fields.report(
                .error, "invalid-identifier", "CFBundleIdentifier", "\"\(identifier)\" is not a valid bundle identifier",
                hint: "use only letters, digits, hyphens and dots, in reverse-DNS order, such as com.example.notes"
            )
        }
        let executable = fields.requiredString("CFBundleExecutable", hint: "name the executable file inside the bundle")
        if let executable, executable.contains("/") || executable == "." || executable == ".." {
            fields.report(
                .error, "invalid-executable-name", "CFBundleExecutable", "\"\(executable)\" is not a plain file name",
                hint: "name a file directly inside the bundle, without a path"
            )
        }
        let manifest = role == .appExtension ? ExtensionManifest.read(&fields) : nil
        if role == .application, entries[ExtensionManifest.Key.extensionDictionary] != nil {
            fields.report(
                .error, "extension-key-in-app", ExtensionManifest.Key.extensionDictionary,
                "belongs in an extension's Info.plist, not a containing app's",
                hint: "move the extension into PlugIns/NAME.appex with its own Info.plist"
            )
        }
        if role == .appExtension, entries[ExtensionPoint.DeclarationKey.points] != nil {
            fields.report(
                .error, "points-key-in-extension", ExtensionPoint.DeclarationKey.points,
                "declares extension points, which only a containing app may do",
                hint: "move the declaration into the containing app's Info.plist"
            )
        }
        let declaredPoints = role == .application ? ExtensionPoint.readDeclarations(&fields, app: identifier ?? "") : []
        let info = BundleInfo(
            identifier: identifier ?? "",
            executable: executable ?? "",
            name: fields.optionalString("CFBundleName"),
            displayName: fields.optionalString("CFBundleDisplayName"),
            shortVersion: fields.optionalString("CFBundleShortVersionString"),
            version: fields.optionalString("CFBundleVersion"),
            urlTypes: URLType.readAll(&fields),
            exportedTypes: UTTypeDeclaration.readAll(&fields, key: "UTExportedTypeDeclarations"),
            importedTypes: UTTypeDeclaration.readAll(&fields, key: "UTImportedTypeDeclarations"),
            extensionManifest: manifest,
            declaredPoints: declaredPoints,
            all: entries
        )
        let shownText = [("CFBundleName", info.name), ("CFBundleDisplayName", info.displayName),
                         ("CFBundleShortVersionString", info.shortVersion), ("CFBundleVersion", info.version)]
        for case (let key, let text?) in shownText where text != text.escapingControlCharacters {
            fields.report(
                .warning, "control-characters", key, "holds control characters, which every host shows as escapes such as \\u{1B}",
                hint: "write it as one line of printable characters"
            )
        }
        // A bundle with a missing identifier or executable is still returned, so validation can
        // go on to check everything else; its diagnostics make it invalid.
        guard role == .application || manifest != nil else { return nil }
        return info
    }

    /// Whether `identifier` is a usable bundle identifier: letters, digits, `-` and `.`, no empty component.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        guard !identifier.isEmpty, identifier.utf8.count <= 255 else { return false }
        let components = identifier.split(separator: ".", omittingEmptySubsequences: false)
        return components.allSatisfy { component in
            !component.isEmpty && component.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
        }
    }
}
