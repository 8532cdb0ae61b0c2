import AppexCore
import Foundation

/// pluginkit's spellings, taken for people and scripts used to macOS: `-m` lists, `-e use`
/// and `-e ignore` enable and disable, `-a` installs and `-r` uninstalls.
///
/// ```
/// appex -m -p share -v            appex list -p share -v
/// appex -e ignore -i com.ex.share appex disable com.ex.share
/// appex -a Notes.app              appex install Notes.app
/// appex -r Notes.app              appex uninstall com.example.notes
/// ```
enum PluginKitSpelling {
    /// `arguments` in appex's own words when they are in pluginkit's, or nil when they aren't.
    static func translate(_ arguments: [String]) throws -> [String]? {
        guard let first = arguments.first else { return nil }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-m", "--match":
            return ["list"] + (try matching(rest))
        case _ where first.hasPrefix("-m") && first.count > 2 && first.dropFirst(2).allSatisfy({ "ADv".contains($0) }):
            return ["list"] + (try matching(first.dropFirst(2).map { "-\($0)" } + rest))
        case "-e":
            return try election(rest)
        case "-a":
            guard rest.count == 1 else { throw usage("pluginkit's -a takes the app to install: appex -a APP.app (one at a time)") }
            return ["install", rest[0]]
        case "-r":
            guard rest.count == 1 else { throw usage("pluginkit's -r takes the app to remove: appex -r APP.app, or its identifier") }
            return ["uninstall", try appIdentifier(rest[0])]
        default:
            return nil
        }
    }

    /// `-m`'s options as `list` takes them. `-A` and `-D` change nothing: appex keeps one
    /// copy of one version of each app.
    private static func matching(_ options: [String]) throws -> [String] {
        var translated: [String] = []
        for option in options {
            switch option {
            case "-A", "--all-versions", "-D", "--duplicates": continue
            case "--protocol": translated.append("--point")
            case _ where option.contains("=") && !option.hasPrefix("-"):
                throw usage("pluginkit's key=value matching is not taken; `appex list -p POINT -i ID` filters, and `appex query` matches items")
            default: translated.append(option)
            }
        }
        return translated
    }

    /// `-e use|ignore|default -i ID` as `enable ID` or `disable ID`.
    private static func election(_ options: [String]) throws -> [String] {
        guard let election = options.first else { throw usage("pluginkit's -e takes an election: use, ignore or default") }
        let command: String
        switch election {
        case "use", "default": command = "enable"
        case "ignore": command = "disable"
        default: throw usage("'\(election)' is not an election; pluginkit's are use, ignore and default")
        }
        let rest = Array(options.dropFirst())
        guard let flag = rest.firstIndex(where: { $0 == "-i" || $0 == "--identifier" }), flag + 1 < rest.count else {
            throw usage("-e \(election) needs the extension: appex -e \(election) -i ID (or appex \(command) ID)")
        }
        return [command, rest[flag + 1]]
    }

    /// The identifier of the app at `path`, or `path` itself when it names no folder.
    private static func appIdentifier(_ path: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return path }
        let info = URL(fileURLWithPath: path).appendingPathComponent("Info.plist")
        guard let data = FileManager.default.contents(atPath: info.path), let plist = try? PropertyListValue(decoding: data),
              let identifier = plist["CFBundleIdentifier"]?.stringValue
        else { throw usage("\(path) has no Info.plist with a CFBundleIdentifier; give the app's identifier instead") }
        if path.hasSuffix(".appex") || path.hasSuffix(".appex/") {
            throw usage("\(identifier) is an extension; appex installs and removes whole apps: give its app, or `appex disable \(identifier)`")
        }
        return identifier
    }

    private static func usage(_ message: String) -> CommandFailure {
        CommandFailure(status: CommandFailure.trouble, "error: \(message)")
    }
}
