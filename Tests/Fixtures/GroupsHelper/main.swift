// A process of an app group, for the tests of shared defaults and group containers: the
// other side of what a test does in its own process. Each command prints its result.
//
//   increment CONTAINER SUITE KEY COUNT   adds 1 to KEY, COUNT times, with update(forKey:)
//   pairs CONTAINER SUITE                 writes {n, copy: n} to "pair" for n = 1, 2, … for ever
//   set CONTAINER SUITE KEY VALUE         sets KEY to the string VALUE
//   get CONTAINER SUITE KEY               prints KEY's value
//   wait-for CONTAINER SUITE KEY VALUE    prints "ready", then waits until a didChangeNotification
//                                         shows KEY at VALUE, and prints "seen"
//   container GROUP                       prints containerURL(forSecurityApplicationGroupIdentifier:), or "nil"
import AppexGroups
import Foundation

func defaults(_ container: String, _ suite: String) -> GroupDefaults {
    guard let defaults = GroupDefaults(suiteName: suite, container: URL(fileURLWithPath: container)) else { exit(70) }
    return defaults
}

/// Prints a line at once, unbuffered, for the test that waits on it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("increment", 5):
    let shared = defaults(arguments[1], arguments[2])
    for _ in 0..<(Int(arguments[4]) ?? 0) {
        shared.update(forKey: arguments[3]) { (($0 as? Int) ?? 0) + 1 }
    }
    say("done")
case ("pairs", 3):
    let shared = defaults(arguments[1], arguments[2])
    var n = 0
    while true {
        n += 1
        shared.set(["n": n, "copy": n], forKey: "pair")
        if n == 1 { say("started") }
    }
case ("set", 5):
    defaults(arguments[1], arguments[2]).set(arguments[4], forKey: arguments[3])
    say("set")
case ("get", 4):
    say(defaults(arguments[1], arguments[2]).object(forKey: arguments[3]).map { "\($0)" } ?? "nil")
case ("wait-for", 5):
    nonisolated(unsafe) let shared = defaults(arguments[1], arguments[2]) // GroupDefaults is thread-safe
    let (key, value) = (arguments[3], arguments[4])
    let seen = DispatchSemaphore(value: 0)
    let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: shared, queue: nil) { _ in
        if shared.string(forKey: key) == value { seen.signal() }
    }
    say("ready")
    if shared.string(forKey: key) != value { seen.wait() }
    say("seen")
    NotificationCenter.default.removeObserver(observer)
case ("container", 2):
    say(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: arguments[1])?.path ?? "nil")
default:
    FileHandle.standardError.write(Data("usage: see the top of Tests/Fixtures/GroupsHelper/main.swift\n".utf8))
    exit(64)
}
