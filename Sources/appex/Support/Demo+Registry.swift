import AppexBundles
import AppexCore
import AppexRegistry
import Foundation

extension Demo {
    /// The registry's side: what is installed, which extensions a host may offer for some
    /// items, a rule matched, the user's choices, a broken bundle validated, an uninstall.
    func tourTheRegistry() throws {
        try list()
        try query()
        try match()
        try userChoices()
        try validateBrokenBundle()
        try uninstall()
    }

    private func list() throws {
        heading("List the installed extensions (appex list -v)")
        for plugIn in try RegistryAccess.run({ () throws(RegistryError) in try registry.extensions() }) {
            let point = try RegistryAccess.points(registry)[plugIn.pointIdentifier]?.name ?? plugIn.pointIdentifier
            let rule = plugIn.manifest.activationRule.map { RuleText.describe($0) } ?? "(no rule)"
            print("  \(plugIn.isEnabled ? "+" : "-") \(plugIn.identifier.column(32)) \(plugIn.displayName.column(18)) \(point)")
            print("      rule: \(rule.count > 110 ? String(rule.prefix(107)) + "…" : rule)")
        }
    }

    /// Item sets a host might hold, with what each is.
    static let itemSets: [(String, ActivationItems)] = [
        // Hosts that share text send it as content text and as a plain-text attachment, as Apple's do.
        ("some text", ActivationItems([.init(
            attributedContentText: "Buy oat milk", attachments: [.init(registeredTypeIdentifiers: ["public.plain-text"])]
        )])),
        ("a web URL", ActivationItems([.init(attachments: [.init(registeredTypeIdentifiers: ["public.url"])])])),
        ("3 JPEG photos", ActivationItems([.init(attachments: Array(repeating: .init(registeredTypeIdentifiers: ["public.jpeg"]), count: 3))])),
        ("12 PNG images", ActivationItems([.init(attachments: Array(repeating: .init(registeredTypeIdentifiers: ["public.png"]), count: 12))])),
        ("a movie and a photo", ActivationItems([.init(attachments: [
            .init(registeredTypeIdentifiers: ["com.apple.quicktime-movie"]), .init(registeredTypeIdentifiers: ["public.jpeg"]),
        ])])),
        ("a note file", ActivationItems([.init(attachments: [.init(registeredTypeIdentifiers: ["com.example.notes.note"])])])),
        ("a PDF", ActivationItems([.init(attachments: [.init(registeredTypeIdentifiers: ["com.adobe.pdf"])])])),
    ]

    private func query() throws {
        heading("Ask which extensions a host may offer for some items (appex query)")
        try printQueries()
    }

    private func printQueries(only: [String]? = nil) throws {
        for (name, items) in Self.itemSets where only?.contains(name) ?? true {
            var columns: [String] = []
            var times: [String] = []
            for point in [ExtensionPoint.share, ExtensionPoint.action] {
                let (matches, time) = try timed { try RegistryAccess.run { () throws(RegistryError) in try registry.query(point: point.id, items: items) } }
                columns.append("\(point.name): \(matches.isEmpty ? "—" : matches.map(\.displayName).joined(separator: ", "))")
                times.append(time)
            }
            print("  \(name.column(20)) \(columns.map { $0.column(40) }.joined(separator: " ")) [\(times.joined(separator: ", "))]")
        }
    }

    private func match() throws {
        heading("Match one rule against items, as `appex match` does: compiled once, evaluated per item set")
        guard let plugIn = try RegistryAccess.run({ () throws(RegistryError) in try registry.extension("com.example.notes.share") }),
            let source = plugIn.manifest.activationRule
        else { return }
        let (rule, compileTime) = try timed { () throws -> ActivationRule in
            do {
                return try ActivationRule.parse(source)
            } catch {
                throw CommandFailure(status: CommandFailure.trouble, "error: \(error)")
            }
        }
        print("  \(plugIn.displayName)'s predicate, compiled in \(compileTime)")
        let types = try RegistryAccess.run { () throws(RegistryError) in try registry.typeGraph() }
        for (name, items) in Self.itemSets {
            let (matched, time) = timed { rule.matches(items, types: types) }
            print("  \(name.column(20)) \(matched ? "match" : "no match")  [\(time)]")
        }
    }

    private func userChoices() throws {
        heading("The user disables \"Add to Notes\" and puts \"Add to Album\" first (appex disable, appex order)")
        try RegistryAccess.run { () throws(RegistryError) in
            try registry.setEnabled(false, extension: "com.example.notes.share")
            try registry.setOrder(["com.example.photos.share", "com.example.notes.share"], point: ExtensionPoint.share.id)
        }
        try printQueries(only: ["some text", "a web URL", "3 JPEG photos"])
        let order = try RegistryAccess.run { () throws(RegistryError) in try registry.extensions(point: ExtensionPoint.share.id) }
        print("  Share extensions in the user's order: \(order.map { "\($0.isEnabled ? "+" : "-")\($0.identifier)" }.joined(separator: ", "))")
    }

    private func validateBrokenBundle() throws {
        heading("Validate a broken bundle: every problem at once, with file, key path and hint (appex validate)")
        let folder = root.appendingPathComponent("broken")
        let app = folder.appendingPathComponent("Broken.app")
        let share = app.appendingPathComponent("PlugIns/BrokenShare.appex")
        try FileManager.default.createDirectory(at: share, withIntermediateDirectories: true)
        let appInfo: PropertyListValue = ["CFBundleIdentifier": "com.example.broken", "CFBundleExecutable": "broken", "CFBundleVersion": "1"]
        let shareInfo: PropertyListValue = [
            "CFBundleIdentifier": "com.example.other.share", "CFBundleExecutable": "BrokenShare",
            "NSExtension": [
                "NSExtensionPointIdentifier": "com.apple.share-services", "NSExtensionPrincipalClass": "BrokenShare.Handler",
                "NSExtensionAttributes": ["NSExtensionActivationRule": "SUBQUERY(extensionItems, $item,\n  $item.attachments.@count >> 0).@count == 1"],
            ],
        ]
        try appInfo.xmlData().write(to: app.appendingPathComponent("Info.plist"))
        try shareInfo.xmlData().write(to: share.appendingPathComponent("Info.plist"))
        let inspection = BundleValidator(types: .system).validate(appAt: app)
        for diagnostic in inspection.diagnostics { print("  \(diagnostic)") }
    }

    private func uninstall() throws {
        heading("Uninstall Notes: its bundle, its containers, and the app group no other app uses (appex uninstall)")
        let (report, time) = try timed { try RegistryAccess.run { () throws(RegistryError) in try registry.uninstall("com.example.notes") } }
        print("  removed \(report.appIdentifier) and \(report.extensionIdentifiers.joined(separator: ", ")); group containers removed: \(report.removedGroups.isEmpty ? "none" : report.removedGroups.joined(separator: ", "))  [\(time)]")
        let left = try RegistryAccess.run { () throws(RegistryError) in try registry.apps() }
        print("  still installed: \(left.map(\.identifier).joined(separator: ", "))")
    }
}
