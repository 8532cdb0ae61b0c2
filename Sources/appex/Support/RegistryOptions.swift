import AppexCore
import AppexRegistry
import ArgumentParser

/// Opens the registry of this user's Appex home, turning failure into a command failure.
enum RegistryAccess {
    static func open() throws -> Registry {
        do {
            return try Registry(home: .current)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The extension points there are: the system's and those installed apps declare.
    static func points(_ registry: Registry) throws -> ExtensionPointCatalog {
        try run { () throws(RegistryError) in try registry.extensionPoints() }
    }

    /// The point named `nameOrIdentifier` (`share`, `Today`, or an identifier), among the
    /// system's and the declared points; a usage error naming the closest when none is.
    static func point(_ nameOrIdentifier: String, in points: ExtensionPointCatalog) throws -> ExtensionPoint {
        if let point = points.point(named: nameOrIdentifier) { return point }
        let known = points.all.flatMap { [$0.name.lowercased(), $0.id] }
        throw Suggestion.failure(CommandFailure.trouble, "error: there is no extension point \(nameOrIdentifier)", typed: nameOrIdentifier, among: known,
                                 hint: "`appex points` lists them", code: "no-such-point")
    }

    /// Runs `body`, turning registry errors into command failures.
    static func run<T>(_ body: () throws(RegistryError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CommandFailure(error)
        }
    }
}
