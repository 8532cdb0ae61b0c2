import AppexBundles
import AppexCore
import AppexRegistry
import Foundation

/// The Today view's widgets and the add list, as `appex today list` prints them: which widgets
/// show, in what order and mode, and which could be added, each with its name and the
/// `widget.description` of its InfoPlist.strings.
struct TodayWidgetListing: Encodable {
    /// One widget, shown or not.
    struct Entry: Encodable {
        var identifier: String
        var name: String
        /// The `widget.description` of its InfoPlist.strings, in the user's language.
        var description: String?
        /// Its place in the view, from 1, if it shows.
        var position: Int?
        var mode: String?
        var enabled: Bool
        /// Whether it has content, as the widget or its app last said: without, it is hidden.
        var hasContent = true
    }

    var shown: [Entry]
    var available: [Entry]

    /// The key of InfoPlist.strings that describes a widget in the add list.
    static let descriptionKey = "widget.description"

    init(registry: Registry) throws(RegistryError) {
        let widgets = try registry.todayWidgets()
        let installed = try registry.extensions(point: ExtensionPoint.today.id)
        let languages = PreferredLanguages.current
        func entry(_ plugIn: InstalledExtension) -> Entry {
            let tables = BundleReader().localizations(in: plugIn.url)
            return Entry(identifier: plugIn.identifier, name: plugIn.displayName,
                         description: Localization.string(Self.descriptionKey, in: tables, languages: languages), enabled: plugIn.isEnabled)
        }
        shown = widgets.enumerated().compactMap { index, widget in
            guard let plugIn = installed.first(where: { $0.identifier == widget.identifier }) else { return nil }
            var shown = entry(plugIn)
            shown.position = index + 1
            shown.mode = widget.displayMode
            shown.hasContent = widget.hasContent
            return shown
        }
        available = installed.filter { plugIn in !widgets.contains { $0.identifier == plugIn.identifier } }.map(entry)
    }

    /// The listing as lines for a person.
    var lines: [String] {
        var lines = ["In the Today view:"]
        if shown.isEmpty { lines.append("  none; `appex today add ID` adds one") }
        for entry in shown {
            let hidden = !entry.enabled ? ", disabled: not shown" : !entry.hasContent ? ", hidden: it has no content now" : ""
            lines.append("  \(entry.position!). \(entry.name) (\(entry.identifier)), \(entry.mode!)\(hidden)")
        }
        lines.append("Can be added:")
        if available.isEmpty { lines.append("  none; every installed widget is in the view") }
        for entry in available {
            lines.append("  \(entry.name) (\(entry.identifier))\(entry.enabled ? "" : ", disabled")")
            if let description = entry.description { lines.append("      \(description)") }
        }
        return lines
    }
}

