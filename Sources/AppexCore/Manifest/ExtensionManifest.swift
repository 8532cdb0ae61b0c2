/// The `NSExtension` dictionary of an extension's Info.plist: which point it extends and how.
public struct ExtensionManifest: Sendable, Hashable {
    /// `NSExtensionPointIdentifier`: the point this extension extends.
    public var pointIdentifier: String
    /// `NSExtensionPrincipalClass`: the module-qualified Swift class that handles requests.
    public var principalClass: String?
    /// `NSExtensionMainStoryboard`: accepted so real Info.plists load, but storyboards are not used on Linux.
    public var mainStoryboard: String?
    /// `NSExtensionAttributes`: every attribute, kept whole for the points that use them.
    public var attributes: [String: PropertyListValue]

    public init(
        pointIdentifier: String,
        principalClass: String? = nil,
        mainStoryboard: String? = nil,
        attributes: [String: PropertyListValue] = [:]
    ) {
        self.pointIdentifier = pointIdentifier
        self.principalClass = principalClass
        self.mainStoryboard = mainStoryboard
        self.attributes = attributes
    }

    /// `NSExtensionActivationRule`, as written: a predicate string or a dictionary of counts.
    public var activationRule: PropertyListValue? {
        attributes[Key.activationRule]
    }

    /// `NSExtensionJavaScriptPreprocessingFile`: the script, without `.js`, that prepares a web page.
    public var javaScriptPreprocessingFile: String? {
        attributes[Key.javaScriptPreprocessingFile]?.stringValue
    }

    /// The Info.plist keys of the `NSExtension` dictionary.
    public enum Key {
        public static let extensionDictionary = "NSExtension"
        public static let pointIdentifier = "NSExtensionPointIdentifier"
        public static let principalClass = "NSExtensionPrincipalClass"
        public static let mainStoryboard = "NSExtensionMainStoryboard"
        public static let attributes = "NSExtensionAttributes"
        public static let activationRule = "NSExtensionActivationRule"
        public static let javaScriptPreprocessingFile = "NSExtensionJavaScriptPreprocessingFile"
    }
}

extension ExtensionManifest {
    /// Reads the `NSExtension` dictionary, recording every problem in `diagnostics`.
    static func read(_ fields: inout PropertyListFields) -> ExtensionManifest? {
        guard let dictionary = fields.optionalDictionary(Key.extensionDictionary) else {
            if fields.entries[Key.extensionDictionary] == nil {
                fields.report(
                    .error, "missing-key", Key.extensionDictionary, "is missing from an extension's Info.plist",
                    hint: "add an NSExtension dictionary with NSExtensionPointIdentifier and NSExtensionPrincipalClass"
                )
            }
            return nil
        }
        var inner = PropertyListFields(dictionary, file: fields.file, keyPathPrefix: Key.extensionDictionary)
        defer { fields.diagnostics += inner.diagnostics }
        let point = inner.requiredString(
            Key.pointIdentifier, hint: "name the point this extension extends, such as com.apple.share-services"
        )
        let principalClass = inner.optionalString(Key.principalClass)
        let storyboard = inner.optionalString(Key.mainStoryboard)
        let attributes = inner.optionalDictionary(Key.attributes) ?? [:]
        if let storyboard {
            inner.report(
                .warning, "storyboard-unused", Key.mainStoryboard,
                "names the storyboard \"\(storyboard)\", but storyboards are not used on Linux",
                hint: principalClass == nil
                    ? "set NSExtensionPrincipalClass to the Swift class (Module.Class) that handles requests"
                    : "NSExtensionPrincipalClass is used instead"
            )
        } else if principalClass == nil, dictionary[Key.principalClass] == nil {
            inner.report(
                .error, "missing-key", Key.principalClass, "is missing; it is required",
                hint: "name the Swift class that handles requests, module-qualified, such as NotesShare.ShareViewController"
            )
        }
        if let principalClass, !principalClass.contains(".") {
            inner.report(
                .warning, "unqualified-principal-class", Key.principalClass,
                "\"\(principalClass)\" is not module-qualified, so NSClassFromString will not find it on Linux",
                hint: "write Module.\(principalClass)"
            )
        }
        guard let point else { return nil }
        return ExtensionManifest(
            pointIdentifier: point, principalClass: principalClass, mainStoryboard: storyboard, attributes: attributes
        )
    }
}
