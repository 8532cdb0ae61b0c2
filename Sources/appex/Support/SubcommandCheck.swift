/// Refuses a command `appex` doesn't have before the argument parser sees it, naming the
/// one probably meant, as git and cargo do: ArgumentParser would say "Unexpected argument",
/// and `appex help nosuch` would print the main help and succeed.
enum SubcommandCheck {
    /// Throws a usage error if `arguments` start with a word that is not one of `commands`,
    /// or ask for help on one.
    static func check(_ arguments: [String], commands: [String]) throws {
        guard var word = arguments.first, !word.hasPrefix("-") else { return }
        if word == "help" {
            guard arguments.count > 1 else { return }
            word = arguments[1]
        }
        guard !commands.contains(word) else { return }
        throw Suggestion.failure(CommandFailure.trouble, "error: '\(word)' is not an appex command", typed: word, among: commands,
                                 hint: "`appex --help` lists them", code: "usage")
    }
}
