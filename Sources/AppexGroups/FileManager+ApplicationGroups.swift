public import Foundation

extension FileManager {
    /// The shared container of the app group `groupIdentifier`, made on first use, or nil if
    /// this process's bundle is not entitled to the group
    /// (`com.apple.security.application-groups`), as on Apple's systems.
    ///
    /// Foundation on Linux has no such method. Here appexd answers, from the entitlements of
    /// the installed app or extension this process runs (see ``ApplicationGroups``). When the
    /// answer is nil, the reason is written to standard error once.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        switch ApplicationGroups.container(for: groupIdentifier) {
        case .success(let url):
            return url
        case .failure(let error):
            RefusalLog.once(groupIdentifier, "containerURL(forSecurityApplicationGroupIdentifier:) is nil: \(error)")
            return nil
        }
    }
}
