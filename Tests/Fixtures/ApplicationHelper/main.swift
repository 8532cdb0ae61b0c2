// A containing app that uses app-only API, for the tests of AppexApplication and of
// `appex validate`, which must find that an executable links it.
//
//   background-task GRACE_MS   begins a background task whose expiration handler prints
//                              "expired" and ends it, with GRACE_MS to finish after SIGTERM,
//                              prints "begun", and ends the task when a line "end" comes on stdin
//   (no arguments)             launched by appexd to open a URL: appends "URL from SOURCE" to
//                              the file APPEX_TEST_LAUNCH_RECORD names
import AppexApplication
import AppexLocking
import Foundation

/// Prints a line at once, unbuffered, for the test that waits on it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The next line on standard input, or nil at its end. It calls `read` itself: `readLine`
/// reads inside glibc, where ThreadSanitizer can't see that the thread waits, so it holds a
/// signal that comes meanwhile (SIGTERM, for the dispatch source) until the next line.
func nextLine() -> String? {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
        let count = read(0, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
        if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        line.append(byte)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("background-task", 2):
    let application = UIApplication.shared
    application.terminationGracePeriod = .milliseconds(Int(arguments[1]) ?? 25_000)
    let task = Locked(UIBackgroundTaskIdentifier.invalid)
    task.withLock { identifier in
        identifier = application.beginBackgroundTask(withName: "upload") {
            say("expired, \(Int(application.backgroundTimeRemaining)) s left")
            application.endBackgroundTask(task.withLock { $0 })
        }
    }
    say("begun")
    while let line = nextLine() {
        if line == "end" { application.endBackgroundTask(task.withLock { $0 }) }
        if line == "remaining" { say(application.backgroundTimeRemaining > 1e300 ? "unlimited" : "limited") }
    }
case (nil, 0) where UIApplication.shared.launchOptions[.url] != nil:
    let options = UIApplication.shared.launchOptions
    let line = "\((options[.url] as? URL)?.absoluteString ?? "?") from \(options[.sourceApplication] as? String ?? "?")\n"
    if let path = ProcessInfo.processInfo.environment["APPEX_TEST_LAUNCH_RECORD"],
       let record = FileHandle(forWritingAtPath: path) ?? (FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil) {
        record.seekToEndOfFile()
        record.write(Data(line.utf8))
    }
default:
    FileHandle.standardError.write(Data("usage: see the top of Tests/Fixtures/ApplicationHelper/main.swift\n".utf8))
    exit(64)
}
