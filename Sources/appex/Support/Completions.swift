import AppexCore
import AppexRegistry
import ArgumentParser
import Foundation

/// What the shell completes from this user's registry, as they type: installed extensions,
/// apps, widgets, extension points and app groups. Each reads the registry when asked and
/// offers nothing if it can't, so a broken home never breaks the shell.
enum Completions {
    /// Installed extensions' identifiers.
    static let extensions = registry { registry in try registry.extensions().map(\.identifier) }
    /// Installed apps' identifiers.
    static let apps = registry { registry in try registry.apps().map(\.identifier) }
    /// Installed apps' and extensions' identifiers.
    static let appsAndExtensions = registry { registry in try registry.apps().flatMap { [$0.identifier] + $0.extensions.map(\.identifier) } }
    /// Installed Today widgets' identifiers.
    static let widgets = registry { registry in try registry.extensions(point: ExtensionPoint.today.id).map(\.identifier) }
    /// Extension points, by identifier, and by name where it is one word.
    static let points = registry { registry in
        try registry.extensionPoints().all.flatMap { point in [point.id] + (point.name.contains(" ") ? [] : [point.name.lowercased()]) }
    }
    /// App groups the installed apps and extensions are entitled to.
    static let groups = registry { registry in
        try registry.apps().flatMap { app in app.entitlements.applicationGroups + app.extensions.flatMap(\.entitlements.applicationGroups) }
    }

    /// Completes from what `words` reads out of the registry, those that start with what is typed.
    private static func registry(_ words: @escaping @Sendable (Registry) throws -> [String]) -> CompletionKind {
        .custom { _, _, typed in
            guard FileManager.default.fileExists(atPath: AppexHome.current.registryURL.path),
                  let registry = try? Registry(home: .current), let all = try? words(registry)
            else { return [] }
            return Array(Set(all.filter { $0.hasPrefix(typed) })).sorted()
        }
    }
}
