public import AppexCore
public import Foundation

/// Validates a containing app and its extensions: everything ``BundleReader`` checks per
/// bundle, plus the rules that span bundles and the extension points' policies.
///
/// ```swift
/// let inspection = BundleValidator().validate(appAt: URL(fileURLWithPath: "Notes.app"))
/// for problem in inspection.diagnostics { print(problem) }
/// ```
public struct BundleValidator: Sendable {
    /// The points extensions may name: the system's, and those installed apps declare. An
    /// app's own declarations are added when it is validated.
    public var points: ExtensionPointCatalog
    /// The uniform types that activation rules are checked against.
    public var types: UTTypeGraph
    /// Whether to add what a store would reject: rules that match everything, and so on.
    public var distribution: Bool

    public init(points: ExtensionPointCatalog = ExtensionPoint.catalog, types: UTTypeGraph, distribution: Bool = false) {
        self.points = points
        self.types = types
        self.distribution = distribution
    }

    /// Reads and validates the `.app` at `url`, returning every problem at once.
    public func validate(appAt url: URL) -> BundleInspection {
        var inspection = BundleReader().read(appAt: url)
        if let bundle = inspection.bundle {
            inspection.diagnostics += check(bundle)
        }
        return inspection
    }

    /// The cross-bundle checks for an app that has been read.
    public func check(_ app: AppBundle) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let appName = app.url.lastPathComponent
        let declared = app.info.exportedTypes + app.info.importedTypes
        let types = declared.isEmpty ? types : types.adding(declared)
        for issue in types.issues.dropFirst(self.types.issues.count) {
            diagnostics.append(Diagnostic(
                issue.code == .overridden ? .warning : .error, "type-" + Self.kebabCase(issue.code.description),
                file: appName + "/" + BundleLayout.infoPlist,
                keyPath: issue.declaration.kind == .imported ? "UTImportedTypeDeclarations" : "UTExportedTypeDeclarations",
                "\(issue.declaration.identifier): \(issue.reason)"
            ))
        }
        // A reinstall's declarations replace the ones the installed version made.
        let others = points.removingDeclarations(of: app.info.identifier)
        diagnostics += checkDeclaredPoints(of: app, against: others)
        let points = others.adding(app.info.declaredPoints)
        var seen: [String: String] = [:]
        for plugIn in app.extensions {
            let display = appName + "/" + BundleLayout.plugIns + "/" + plugIn.url.lastPathComponent
            let infoFile = display + "/" + BundleLayout.infoPlist
            let identifier = plugIn.info.identifier
            if !app.info.identifier.isEmpty,
                !identifier.hasPrefix(app.info.identifier + ".") || identifier.count <= app.info.identifier.count + 1
            {
                diagnostics.append(Diagnostic(
                    .error, "identifier-not-prefixed", file: infoFile, keyPath: "CFBundleIdentifier",
                    "\"\(identifier)\" does not start with the containing app's identifier \"\(app.info.identifier)\" and a dot",
                    hint: "name it \(app.info.identifier).\(identifier.split(separator: ".").last ?? "extension")"
                ))
            }
            if let other = seen.updateValue(display, forKey: identifier.lowercased()) {
                diagnostics.append(Diagnostic(
                    .error, "duplicate-identifier", file: infoFile, keyPath: "CFBundleIdentifier",
                    "\"\(identifier)\" is also the identifier of \(other)", hint: "give each extension its own identifier"
                ))
            }
            if let appVersion = app.info.shortVersion, let version = plugIn.info.shortVersion, appVersion != version {
                diagnostics.append(Diagnostic(
                    .warning, "version-mismatch", file: infoFile, keyPath: "CFBundleShortVersionString",
                    "is \(version), but the containing app's is \(appVersion)", hint: "ship an extension with its app's version"
                ))
            }
            diagnostics += check(plugIn.manifest, file: infoFile, types: types, points: points, app: app.info.identifier)
            diagnostics += checkPreprocessingFile(of: plugIn, file: infoFile)
            if !plugIn.info.executable.isEmpty, !plugIn.info.executable.contains("/") {
                let executable = BundleLayout.plugIns + "/" + plugIn.url.lastPathComponent + "/" + plugIn.info.executable
                for module in AppOnlyCode.modules(linkedInto: executable, in: app.url) {
                    diagnostics.append(Diagnostic(
                        distribution ? .error : .warning, "links-app-only-code", file: display + "/" + plugIn.info.executable,
                        "links \(module), which is not safe for use in app extensions: the shared application, background tasks, "
                            + "the camera and the microphone are the containing app's",
                        hint: "take \(module) out of the extension target's dependencies, and move that code into the containing app"
                    ))
                }
            }
        }
        if app.info.version == nil {
            diagnostics.append(Diagnostic(
                .warning, "missing-version", file: appName + "/" + BundleLayout.infoPlist, keyPath: "CFBundleVersion",
                "is missing, so a reinstall can't tell whether it is newer", hint: "set CFBundleVersion, such as 1"
            ))
        }
        return diagnostics
    }

    /// A lint warning as a diagnostic: a store's rules are errors under `--distribution`.
    private func lintDiagnostic(_ warning: ActivationRuleWarning, file: String, ruleKey: String) -> Diagnostic {
        let place = warning.line.map { line in "line \(line), column \(warning.column ?? 1): " } ?? ""
        let severity: Diagnostic.Severity = warning.severity == .distribution && distribution ? .error : .warning
        return Diagnostic(
            severity, "rule-" + Self.kebabCase(warning.code.description), file: file,
            keyPath: ruleKey + (warning.key.map { ".\($0)" } ?? ""), place + warning.message, hint: warning.hint
        )
    }

    /// `matchesEverything` → `matches-everything`.
    static func kebabCase(_ camelCase: String) -> String {
        camelCase.reduce(into: "") { result, character in
            if character.isUppercase { result += "-" + character.lowercased() } else { result.append(character) }
        }
    }

    /// The app's declarations must not take an identifier the system or another installed
    /// app (`others`) already uses.
    private func checkDeclaredPoints(of app: AppBundle, against others: ExtensionPointCatalog) -> [Diagnostic] {
        app.info.declaredPoints.compactMap { declared in
            guard let existing = others[declared.id] else { return nil }
            let owner = existing.declaringApp.map { "the installed app \($0)" } ?? "the system"
            return Diagnostic(
                .error, "point-already-declared", file: app.url.lastPathComponent + "/" + BundleLayout.infoPlist,
                keyPath: ExtensionPoint.DeclarationKey.points + "." + declared.id,
                "\(declared.id) is already an extension point of \(owner)",
                hint: existing.declaringApp == nil ? "extensions of the system's points need no declaration: remove it"
                    : "give the point an identifier of this app's own"
            )
        }
    }

    private func check(_ manifest: ExtensionManifest, file: String, types: UTTypeGraph, points: ExtensionPointCatalog, app: String) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let pointKey = ExtensionManifest.Key.extensionDictionary + "." + ExtensionManifest.Key.pointIdentifier
        guard let point = points[manifest.pointIdentifier] else {
            let known = points.all.filter { $0.support == .hosted }.map(\.id).joined(separator: ", ")
            diagnostics.append(Diagnostic(
                .error, "unknown-extension-point", file: file, keyPath: pointKey,
                "\"\(manifest.pointIdentifier)\" is not an extension point this system knows",
                hint: "use one of \(known), or a point an installed app declares"
            ))
            return diagnostics
        }
        if !point.admitsExtensions(ofApp: app) {
            diagnostics.append(Diagnostic(
                .error, "point-private", file: file, keyPath: pointKey,
                "\(point.name) (\(point.id)) is private to \(point.declaringApp ?? "the app that declares it"): only its own extensions may extend it",
                hint: "extend a public point, or ask the app's developer to make this one public"
            ))
        }
        if point.support == .recognized {
            diagnostics.append(Diagnostic(
                .warning, "point-not-hosted", file: file, keyPath: pointKey,
                "\(point.name) (\(point.id)) is an Apple extension point that Appex does not host on Linux yet",
                hint: "the extension installs, but no host offers it"
            ))
        }
        let ruleKey = ExtensionManifest.Key.extensionDictionary + "." + ExtensionManifest.Key.attributes + "."
            + ExtensionManifest.Key.activationRule
        if let rule = manifest.activationRule {
            do {
                let compiled = try ActivationRule.parse(rule)
                diagnostics += ActivationRuleLint.check(compiled, types: types).map { lintDiagnostic($0, file: file, ruleKey: ruleKey) }
            } catch {
                let place = error.line.map { line in "line \(line), column \(error.column ?? 1): " } ?? ""
                diagnostics.append(Diagnostic(
                    .error, "invalid-activation-rule", file: file, keyPath: ruleKey + (error.key.map { ".\($0)" } ?? ""),
                    place + error.message, hint: error.hint
                ))
            }
        } else if point.policy.requiresActivationRule {
            diagnostics.append(Diagnostic(
                .error, "missing-activation-rule", file: file, keyPath: ruleKey,
                "is missing, but \(point.name) extensions must say which items they accept",
                hint: "add a dictionary such as NSExtensionActivationSupportsText = YES, or a predicate"
            ))
        }
        return diagnostics
    }
}
