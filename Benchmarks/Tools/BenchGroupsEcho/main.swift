// The other process of the shared-defaults benchmark. With CONTAINER and SUITE, it answers
// each change of the key "ping" by setting "pong" to the same value, seen through
// GroupDefaults' change notification; with `pipe`, it answers each line on standard input
// with the same line, the baseline. It says "ready" once it listens.
import AppexGroups
import Foundation

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["pipe"] {
    say("ready")
    while let line = readLine() { say(line) }
    exit(0)
}
guard arguments.count == 2, let shared = GroupDefaults(suiteName: arguments[1], container: URL(fileURLWithPath: arguments[0])) else {
    FileHandle.standardError.write(Data("usage: BenchGroupsEcho CONTAINER SUITE | pipe\n".utf8))
    exit(64)
}
nonisolated(unsafe) let defaults = shared // GroupDefaults is thread-safe
let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: shared, queue: nil) { note in
    let keys = note.userInfo?[GroupDefaults.changedKeysKey] as? [String] ?? []
    guard keys.contains("ping") else { return }
    defaults.set(defaults.integer(forKey: "ping"), forKey: "pong")
}
say("ready")
_ = FileHandle.standardInput.readDataToEndOfFile() // until the benchmark is done
NotificationCenter.default.removeObserver(observer)
