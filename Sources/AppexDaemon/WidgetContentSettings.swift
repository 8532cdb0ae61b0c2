import AppexRegistry
import AppexWire

/// Answers `WidgetHasContent` (`NCWidgetController.setHasContent`): keeps whether a widget
/// has content to show, when the app that contains it says so, or one of that app's
/// extensions (the widget itself, or a Share extension that has just filed what the widget
/// shows), whether or not the widget runs or is in the Today view. Anyone else is refused,
/// with the reason.
enum WidgetContentSettings {
    static func answer(_ setting: WidgetHasContent, from caller: Result<CallingBundle, CallingBundle.Unidentified>,
                       registry: Registry) -> WidgetHasContentResult {
        func refusal(_ reason: String) -> WidgetHasContentResult { WidgetHasContentResult(call: setting.call, reason: reason) }
        let widget = setting.widgetIdentifier
        let bundle: CallingBundle
        switch caller {
        case .success(let found): bundle = found
        case .failure(let unidentified): return refusal("\(unidentified.reason), so it may not say whether \(widget) has content")
        }
        do throws(RegistryError) {
            guard let installed = try registry.extension(widget) else {
                return refusal("no widget \(widget) is installed")
            }
            guard bundle.appIdentifier.lowercased() == installed.appIdentifier.lowercased() else {
                return refusal("\(bundle.identifier) may not say whether \(installed.identifier) has content: "
                    + "only its containing app, \(installed.appIdentifier), and that app's extensions may")
            }
            try registry.setWidgetHasContent(setting.hasContent, for: installed.identifier)
            return WidgetHasContentResult(call: setting.call)
        } catch {
            return refusal("\(error)")
        }
    }
}
