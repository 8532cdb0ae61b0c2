import AppexCore
import AppexRegistry
import AppexWire
import Foundation

/// Answers `GroupContainer`: an app group's container, made on first use, for a bundle whose
/// entitlements name the group; an empty path and the reason for anyone else. Who is asking
/// is always found from the kernel: the extension process appexd launched, or the installed
/// bundle whose executable the client process runs.
enum GroupContainers {
    /// The answer to `query` from `asker`: a bundle, or a client that appexd could not match
    /// to any installed bundle, and why.
    static func answer(_ query: GroupContainer, from asker: Result<CallingBundle, CallingBundle.Unidentified>, home: AppexHome) -> GroupContainerResult {
        let group = query.groupIdentifier
        func refusal(_ reason: String) -> GroupContainerResult { GroupContainerResult(call: query.call, path: "", reason: reason) }
        guard isValid(group) else {
            return refusal("\"\(group)\" is not an app group identifier: it must be a name, with no \"/\" and not \".\" or \"..\"")
        }
        let bundle: CallingBundle
        switch asker {
        case .success(let found): bundle = found
        case .failure(let unidentified): return refusal("\(unidentified.reason), so it is entitled to no app group")
        }
        guard bundle.entitlements.applicationGroups.contains(group) else {
            let named = bundle.entitlements.applicationGroups
            return refusal("\(bundle.identifier) is not entitled to \(group): its \(Entitlements.Key.applicationGroups) entitlement "
                + (named.isEmpty ? "is absent" : "names only \(named.joined(separator: ", "))"))
        }
        let url = home.groupContainer(for: group)
        do {
            try AppexHome.prepareContainer(at: url)
        } catch {
            return refusal("the container of \(group) could not be made at \(url.path): \(FileErrorText.describe(error))")
        }
        return GroupContainerResult(call: query.call, path: url.path)
    }

    /// Whether `group` can name a folder under Groups/ and nothing outside it.
    static func isValid(_ group: String) -> Bool {
        !group.isEmpty && group != "." && group != ".." && !group.contains("/") && !group.contains("\0")
    }
}
