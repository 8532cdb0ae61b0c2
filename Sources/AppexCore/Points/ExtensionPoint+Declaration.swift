/// Reading the extension points a containing app declares in its Info.plist.
///
/// ```xml
/// <key>AppexExtensionPoints</key>
/// <dict>
///     <key>com.example.texttools.formatter</key>
///     <dict>
///         <key>AppexExtensionPointName</key>      <string>Formatter</string>
///         <key>AppexMemoryLimit</key>             <integer>64</integer>   <!-- MiB -->
///         <key>AppexRequestDeadline</key>         <real>5</real>          <!-- seconds -->
///         <key>AppexRequiresActivationRule</key>  <true/>
///         <key>AppexVisibility</key>              <string>public</string>
///     </dict>
/// </dict>
/// ```
///
/// The dictionary has the shape of ExtensionKit's `.appextensionpoint` file, one entry per
/// point; docs/extension-points.md documents every key.
extension ExtensionPoint {
    /// The Info.plist keys of a declaration.
    public enum DeclarationKey {
        /// The app's dictionary of declared points, by identifier.
        public static let points = "AppexExtensionPoints"
        /// A short name for people (string, required).
        public static let name = "AppexExtensionPointName"
        /// The memory limit, in MiB (integer, default 120).
        public static let memoryLimit = "AppexMemoryLimit"
        /// From launch to check-in, in seconds (number, default 1).
        public static let launchDeadline = "AppexLaunchDeadline"
        /// How long one request may run, in seconds (number; no deadline when absent).
        public static let requestDeadline = "AppexRequestDeadline"
        /// Whether extensions must declare `NSExtensionActivationRule` (boolean, default false).
        public static let requiresActivationRule = "AppexRequiresActivationRule"
        /// Whether extensions may ask the system to open URLs (boolean, default false).
        public static let mayOpenURLs = "AppexMayOpenURLs"
        /// `public` (any app's extensions) or `private` (the app's own), default `public`.
        public static let visibility = "AppexVisibility"
        /// ExtensionKit's key, kept as written: whether the point's extensions show an interface.
        public static let presentsUserInterface = "EXPresentsUserInterface"
    }

    /// The bounds a declared policy must keep. A point can't give its extensions more than
    /// the system's most generous points do, nor so little that none could start.
    public enum DeclarationBounds {
        /// Memory limits, in MiB.
        public static let memoryLimit = 8.0...1024
        /// Launch deadlines, in seconds.
        public static let launchDeadline = 0.05...30.0
        /// Request deadlines, in seconds: a day at most.
        public static let requestDeadline = 0.1...86_400.0
        /// The memory limit of a declaration that gives none, in MiB: Share's and Action's.
        public static let defaultMemoryLimit = 120
    }

    /// Reads the points declared under `AppexExtensionPoints` in the Info.plist `fields` of the
    /// app `appIdentifier`, recording every problem. A declaration with an error is left out.
    static func readDeclarations(_ fields: inout PropertyListFields, app appIdentifier: String) -> [ExtensionPoint] {
        guard let entries = fields.optionalDictionary(DeclarationKey.points) else { return [] }
        var points: [ExtensionPoint] = []
        for identifier in entries.keys.sorted() {
            let keyPath = fields.keyPath(DeclarationKey.points) + "." + identifier
            guard let dictionary = entries[identifier]?.dictionaryValue else {
                fields.diagnostics.append(Diagnostic(
                    .error, "wrong-type", file: fields.file, keyPath: keyPath,
                    "is a \(entries[identifier]?.kindName ?? "value"), but must be a dictionary of the point's policy"
                ))
                continue
            }
            var inner = PropertyListFields(dictionary, file: fields.file, keyPathPrefix: keyPath)
            let point = declared(identifier, dictionary: &inner, app: appIdentifier)
            fields.diagnostics += inner.diagnostics
            if let point { points.append(point) }
        }
        return points
    }

    /// Reads one declaration: the point `identifier` of the app `appIdentifier`, described by
    /// `fields`. Nil, with diagnostics in `fields`, when it has an error.
    public static func declared(_ identifier: String, entries: [String: PropertyListValue], app appIdentifier: String,
                                file: String, diagnostics: inout [Diagnostic]) -> ExtensionPoint? {
        var fields = PropertyListFields(entries, file: file, keyPathPrefix: DeclarationKey.points + "." + identifier)
        defer { diagnostics += fields.diagnostics }
        return declared(identifier, dictionary: &fields, app: appIdentifier)
    }

    private static func declared(_ identifier: String, dictionary fields: inout PropertyListFields, app appIdentifier: String) -> ExtensionPoint? {
        let errorsBefore = fields.diagnostics.filter { $0.severity == .error }.count
        if !BundleInfo.isValidIdentifier(identifier) {
            fields.diagnostics.append(Diagnostic(
                .error, "invalid-point-identifier", file: fields.file, keyPath: fields.keyPathPrefix,
                "\"\(identifier)\" is not a valid extension point identifier",
                hint: "use reverse-DNS, starting with the app's identifier, such as \(appIdentifier).formatter"))
        } else if !appIdentifier.isEmpty, !identifier.lowercased().hasPrefix(appIdentifier.lowercased() + ".") {
            fields.diagnostics.append(Diagnostic(
                .error, "point-not-prefixed", file: fields.file, keyPath: fields.keyPathPrefix,
                "\"\(identifier)\" does not start with the declaring app's identifier \"\(appIdentifier)\" and a dot",
                hint: "name it \(appIdentifier).\(identifier.split(separator: ".").last ?? "point"), so no app can declare another's points"))
        }
        let name = fields.requiredString(DeclarationKey.name, hint: "give the point a short name for people, such as Formatter")
        let memory = fields.boundedNumber(DeclarationKey.memoryLimit, DeclarationBounds.memoryLimit, unit: "MiB", integer: true) ?? Double(DeclarationBounds.defaultMemoryLimit)
        let launch = fields.boundedNumber(DeclarationKey.launchDeadline, DeclarationBounds.launchDeadline, unit: "seconds") ?? 1
        let request = fields.boundedNumber(DeclarationKey.requestDeadline, DeclarationBounds.requestDeadline, unit: "seconds")
        let requiresRule = fields.optionalBoolean(DeclarationKey.requiresActivationRule) ?? false
        let mayOpenURLs = fields.optionalBoolean(DeclarationKey.mayOpenURLs) ?? false
        _ = fields.optionalBoolean(DeclarationKey.presentsUserInterface)
        var visibility = Visibility.public
        if let written = fields.optionalString(DeclarationKey.visibility) {
            if let known = Visibility(rawValue: written.lowercased()) {
                visibility = known
            } else {
                fields.report(.error, "invalid-visibility", DeclarationKey.visibility, "is \"\(written)\", which is neither public nor private",
                              hint: "write public, for any app's extensions, or private, for this app's own")
            }
        }
        let known: Set<String> = [DeclarationKey.name, DeclarationKey.memoryLimit, DeclarationKey.launchDeadline, DeclarationKey.requestDeadline,
                                  DeclarationKey.requiresActivationRule, DeclarationKey.mayOpenURLs, DeclarationKey.visibility,
                                  DeclarationKey.presentsUserInterface]
        for key in fields.entries.keys.sorted() where !known.contains(key) {
            fields.report(.warning, "unknown-point-key", key, "is not a key of an extension point declaration, so it changes nothing",
                          hint: "docs/extension-points.md lists the keys")
        }
        guard let name, fields.diagnostics.filter({ $0.severity == .error }).count == errorsBefore else { return nil }
        let policy = ExtensionPointPolicy(
            memoryLimit: .mebibytes(Int(memory)), launchDeadline: .milliseconds(Int((launch * 1000).rounded())),
            requestDeadline: request.map { .milliseconds(Int(($0 * 1000).rounded())) },
            mayOpenURLs: mayOpenURLs, requiresActivationRule: requiresRule
        )
        return ExtensionPoint(id: identifier, name: name, policy: policy, declaringApp: appIdentifier, visibility: visibility)
    }
}

extension PropertyListFields {
    /// A number in `bounds` that may be absent; `integer` refuses a fraction.
    mutating func boundedNumber(_ key: String, _ bounds: ClosedRange<Double>, unit: String, integer: Bool = false) -> Double? {
        guard let value = entries[key] else { return nil }
        let number: Double? = switch value {
        case .integer(let whole): Double(whole)
        case .real(let real) where !integer && real.isFinite: real
        default: nil
        }
        guard let number else {
            report(.error, "wrong-type", key, "is a \(value.kindName), but must be \(integer ? "an integer" : "a number") of \(unit)")
            return nil
        }
        guard bounds.contains(number) else {
            report(.error, "out-of-bounds", key, "is \(Self.text(number)) \(unit), outside \(Self.text(bounds.lowerBound))…\(Self.text(bounds.upperBound)) \(unit)",
                   hint: "give a value within those bounds")
            return nil
        }
        return number
    }

    /// `5` for 5.0, `0.05` for 0.05.
    private static func text(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
