import AppexCore
import AppexHost
import AppexRegistry

/// What a terminal host says when it can't send where the user asked: what really stands in
/// the way, and what to do about it.
extension ExtensionChooser {
    /// Why `wanted` is not among `candidates`, the enabled extensions that accept the content:
    /// it is not installed, is of another point, is disabled, or its rule refuses the content.
    func refusal(of wanted: String, candidates: [NSExtension]) -> CommandFailure {
        let others = candidates.isEmpty ? "" : "; these do:\n" + Self.list(candidates)
        guard let registry, let installed = try? registry.extension(wanted) else {
            let known = ((try? registry?.extensions()) ?? []).map(\.identifier)
            return Suggestion.failure(CommandFailure.no, "no extension \(wanted) is installed", typed: wanted, among: known,
                                      hint: "`appex list` shows what is", code: "not-installed")
        }
        let name = "\(installed.displayName) (\(installed.identifier))"
        guard points.contains(where: { $0.id == installed.pointIdentifier }) else {
            let point = (try? registry.extensionPoints().point(named: installed.pointIdentifier)?.name) ?? installed.pointIdentifier
            return CommandFailure(status: CommandFailure.no, "\(name) is a \(point) extension; `appex \(command)` sends to \(pointNames) extensions. \(Self.host(ofPoint: installed.pointIdentifier, identifier: installed.identifier))")
        }
        guard installed.isEnabled else {
            return CommandFailure(status: CommandFailure.no, "\(name) is disabled", hint: "`appex enable \(installed.identifier)` turns it on", code: "disabled")
        }
        return CommandFailure(status: CommandFailure.no, "\(name)'s activation rule does not accept \(content)" + others)
    }

    /// Why no extension accepts the content: none of these points is installed, those there
    /// are disabled, or their rules refuse it.
    func nothingAccepts() -> CommandFailure {
        let installed = points.flatMap { point in (try? registry?.extensions(point: point.id)) ?? [] }
        let disabled = installed.filter { !$0.isEnabled }
        var message: String
        if installed.isEmpty {
            message = "no \(pointNames) extension is installed; `appex install APP` installs an app with one"
        } else if disabled.count == installed.count {
            message = "no \(pointNames) extension is enabled: \(disabled.map(\.identifier).joined(separator: ", ")) \(disabled.count == 1 ? "is" : "are") disabled; `appex enable ID` turns one on"
        } else {
            let enabled = installed.filter(\.isEnabled)
            let refusing = enabled.count == 1
                ? "the activation rule of \(enabled[0].identifier), the one enabled \(pointNames) extension, refuses"
                : "the activation rules of the \(enabled.count) enabled \(pointNames) extensions refuse"
            message = "\(refusing) \(content); `appex info ID` shows a rule, and `appex match --bundle APPEX --items JSON` tries it"
            if !disabled.isEmpty { message += " (\(disabled.count) more disabled: `appex list -v`)" }
        }
        return CommandFailure(status: CommandFailure.no, message)
    }

    /// "Share or Action".
    private var pointNames: String {
        points.map(\.name).joined(separator: " or ")
    }

    /// The command that hosts an extension of `point`.
    private static func host(ofPoint point: String, identifier: String) -> String {
        switch point {
        case ExtensionPoint.share.id: "`appex share --to \(identifier)` sends to it."
        case ExtensionPoint.action.id: "`appex action --to \(identifier)` sends to it."
        case ExtensionPoint.today.id: "`appex today` shows it."
        default: "`appex run \(identifier)` sends it a request."
        }
    }
}
