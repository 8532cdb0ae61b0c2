// A program linked to the shared Swift runtime, for the launcher to load rather than execute
// (LauncherTests), and that runs as well on its own:
//
//     AppexLoadedProgram STATUS|wait [DIR]
//
// It says, one line each on standard output: its pid and arguments, its open descriptors
// (one of them the listing's own), its main bundle's executable and its process name, the
// environment's
// GREETING, a value encoded as JSON, whether a lock another thread waited for was handed over
// (its thread ids are its own, in thread-local storage made for it when it was loaded), and
// with DIR whether it could open DIR/allowed and DIR/forbidden. Then it exits with STATUS, or waits for ever.
import AppexLocking
import Foundation
import Glibc

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

say("pid \(getpid()) arguments \(CommandLine.arguments.dropFirst().joined(separator: " "))")
let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap(Int.init).sorted() ?? []
say("descriptors \(descriptors.map(String.init).joined(separator: " "))")
say("bundle \(Bundle.main.executablePath ?? "none") process \(ProcessInfo.processInfo.processName)")
say("greeting \(ProcessInfo.processInfo.environment["GREETING"] ?? "none")")
let json = try JSONEncoder().encode(["answer": 42])
say("json \(String(decoding: json, as: UTF8.self))")

// Locked, Swift's Mutex with each hand-over told to ThreadSanitizer, which can't see the futex.
let lock = Locked(0)
let thread = Thread {
    lock.withLock { $0 += 1 }
}
lock.withLock { value in
    thread.start()
    usleep(50_000)
    value += 1
}
while lock.withLock({ $0 }) < 2 { usleep(1_000) }
say("lock handed over")

if CommandLine.arguments.count > 2 {
    let folder = CommandLine.arguments[2]
    var report = "files"
    for name in ["allowed", "forbidden"] {
        let fd = open("\(folder)/\(name)", O_RDONLY)
        report += " \(name): \(fd >= 0 ? "read" : String(cString: strerror(errno)))"
    }
    say(report)
}
if CommandLine.arguments.dropFirst().first == "wait" {
    while true { pause() }
}
exit(Int32(CommandLine.arguments.dropFirst().first ?? "0") ?? 0)
