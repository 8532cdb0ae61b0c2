import AppexRegistry
import ArgumentParser

struct EnableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Let hosts offer an extension (pluginkit -e use). Kept across reinstalls."
    )

    @Argument(help: "The extension's bundle identifier.", completion: Completions.extensions)
    var identifier: String

    func run() throws {
        let registry = try RegistryAccess.open()
        try RegistryAccess.run { () throws(RegistryError) in try registry.setEnabled(true, extension: identifier) }
        print("+    \(identifier)")
    }
}

struct DisableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Stop hosts offering an extension (pluginkit -e ignore). Kept across reinstalls."
    )

    @Argument(help: "The extension's bundle identifier.", completion: Completions.extensions)
    var identifier: String

    func run() throws {
        let registry = try RegistryAccess.open()
        try RegistryAccess.run { () throws(RegistryError) in try registry.setEnabled(false, extension: identifier) }
        print("-    \(identifier)")
    }
}
