import AppexRegistry
import ArgumentParser

/// `appex today list`: the widgets in the view, and the add list.
struct TodayListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the widgets in the Today view, and those that can be added, with their descriptions."
    )

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let registry = try RegistryAccess.open()
        let listing = try RegistryAccess.run { () throws(RegistryError) in try TodayWidgetListing(registry: registry) }
        if json { return try Output.json(listing) }
        for line in listing.lines { print(line) }
    }
}

/// `appex today add`: puts a widget in the view.
struct TodayAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a widget to the Today view.",
        discussion: "Without an identifier, the add list is shown to pick from on a terminal, or printed without one."
    )

    @Argument(help: "The widget's bundle identifier.", completion: Completions.widgets)
    var identifier: String?

    @Option(help: "Its place, from 1 (the top); last if not given.")
    var at: Int?

    func validate() throws {
        if let at, at < 1 { throw ValidationError("--at takes a place from 1") }
    }

    func run() throws {
        let registry = try RegistryAccess.open()
        guard let identifier = try identifier ?? pick(in: registry) else { return }
        try RegistryAccess.run { () throws(RegistryError) in try registry.addTodayWidget(identifier, at: at.map { $0 - 1 }) }
        let listing = try RegistryAccess.run { () throws(RegistryError) in try TodayWidgetListing(registry: registry) }
        for line in listing.lines.prefix(while: { $0 != "Can be added:" }) { print(line) }
    }

    /// The widget the user picks from the add list; nil if they cancel.
    private func pick(in registry: Registry) throws -> String? {
        let listing = try RegistryAccess.run { () throws(RegistryError) in try TodayWidgetListing(registry: registry) }
        guard !listing.available.isEmpty else {
            throw CommandFailure(status: CommandFailure.no, "every installed widget is already in the Today view (`appex list -p today` lists them)")
        }
        guard let terminal = Terminal.standard() else {
            let choices = listing.available.map { "  \($0.identifier)\t\($0.name)" + ($0.description.map { ": \($0)" } ?? "") }
            throw CommandFailure(status: CommandFailure.trouble, "which widget? Without a terminal nothing is asked: pass its identifier, one of:\n" + choices.joined(separator: "\n"))
        }
        var list = ChoiceList(title: "Add to the Today view:", choices: listing.available.map {
            ChoiceList.Choice(label: $0.name, detail: $0.description ?? $0.identifier, note: $0.enabled ? nil : "disabled")
        })
        terminal.enterRaw()
        let picked = list.run(on: terminal)
        terminal.restore()
        terminal.keepDrawing()
        return picked.map { listing.available[$0].identifier }
    }
}

/// `appex today remove`: takes a widget out of the view.
struct TodayRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take a widget out of the Today view.")

    @Argument(help: "The widget's bundle identifier.", completion: Completions.widgets)
    var identifier: String

    func run() throws {
        let registry = try RegistryAccess.open()
        try RegistryAccess.run { () throws(RegistryError) in try registry.removeTodayWidget(identifier) }
        print("Removed \(identifier) from the Today view.")
    }
}

/// `appex today move`: changes a widget's place in the view.
struct TodayMoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a widget to another place in the Today view.")

    @Argument(help: "The widget's bundle identifier.", completion: Completions.widgets)
    var identifier: String

    @Argument(help: "Its new place, from 1 (the top).")
    var position: Int

    func validate() throws {
        guard position >= 1 else { throw ValidationError("the place counts from 1, the top") }
    }

    func run() throws {
        let registry = try RegistryAccess.open()
        try RegistryAccess.run { () throws(RegistryError) in try registry.moveTodayWidget(identifier, to: position - 1) }
        let listing = try RegistryAccess.run { () throws(RegistryError) in try TodayWidgetListing(registry: registry) }
        for line in listing.lines.prefix(while: { $0 != "Can be added:" }) { print(line) }
    }
}
