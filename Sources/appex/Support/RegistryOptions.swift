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

    /// Runs `body`, turning registry errors into command failures.
    static func run<T>(_ body: () throws(RegistryError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CommandFailure(error)
        }
    }
}
