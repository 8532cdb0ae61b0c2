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

    /// The identifier of the point named `nameOrIdentifier` (`share`, `Today`, or an
    /// identifier), looked up among the system's and the declared points.
    static func pointIdentifier(_ nameOrIdentifier: String, in registry: Registry) throws -> String {
        try points(registry).point(named: nameOrIdentifier)?.id ?? nameOrIdentifier
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
