import AppexRegistry
import ArgumentParser

/// `appex debug`: makes appexd start an extension stopped, for a debugger, whichever host
/// launches it next.
struct DebugCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Start an extension stopped at its next launch by any host, for a debugger to attach.",
        discussion: """
            The extension stops itself before its principal class is made, and appexd holds its deadlines. \
            `appex log ID` shows the pid to attach to (`lldb -p PID`, then `continue`). Kept across reinstalls.
            """
    )

    @Argument(help: "The extension's bundle identifier.", completion: Completions.extensions)
    var identifier: String

    @Flag(help: "Every launch, not only the next, until --off.")
    var always = false

    @Flag(help: "Launch it as usual again.")
    var off = false

    func validate() throws {
        if always && off { throw ValidationError("--always and --off can't go together") }
    }

    func run() throws {
        let registry = try RegistryAccess.open()
        let wait: DebuggerWait? = off ? nil : always ? .always : .once
        try RegistryAccess.run { () throws(RegistryError) in try registry.setDebuggerWait(wait, extension: identifier) }
        switch wait {
        case nil: print("\(identifier) launches as usual.")
        case .once?: print("\(identifier) starts stopped at its next launch; `appex log \(identifier) --follow` shows the pid to attach to.")
        case .always?: print("\(identifier) starts stopped at each launch until `appex debug \(identifier) --off`; `appex log \(identifier) --follow` shows the pid to attach to.")
        }
    }
}
