// A launcher in miniature (docs/zygote.md): a subreaper with one thread that forks a child
// through ProcessLaunch.forkRunning, and says how the child ran and ended (ForkRunTests).
//
//     AppexForkRunLauncher plain            no sandbox
//     AppexForkRunLauncher sandboxed DIR    Appex's sandbox, granting DIR/allowed and not DIR/forbidden
//     AppexForkRunLauncher confined DIR     a grant that a link under DIR, a confined folder, leads away
//
// With --abandon last, the child is to die with the launcher, and its body waits for ever
// instead of exiting; the launcher exits as soon as the child has started.
//
// The child's body, Swift forked from this process rather than a program it execs, says its
// stack-protector canary, its pid, the environment it was given and, with DIR, what it could
// open, then exits with 7. The parent says its canary too.
import AppexSandbox
import AppexSystem
import CAppexSystem
import Foundation
import Glibc

/// Writes a line straight to descriptor 1, with no buffer for a child to inherit.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// The child: the folder to probe comes as `context`, a C string.
let body: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
    // As the first process of a pid namespace, this forks the program off as init.c does, and
    // only the program comes back.
    appex_init_become_if_asked()
    guard appex_thread_ids_forget() >= 0 else { _exit(5) }
    say("child's guard \(String(appex_stack_guard(), radix: 16))")
    var report = "pid \(getpid()) greeting \(ProcessInfo.processInfo.environment["GREETING"] ?? "none")"
    if let context {
        let folder = String(cString: context.assumingMemoryBound(to: CChar.self))
        for name in ["allowed", "forbidden"] {
            let fd = open("\(folder)/\(name)", O_RDONLY)
            report += " \(name): \(fd >= 0 ? "read" : String(cString: strerror(errno)))"
        }
    }
    say(report)
    if getenv("ABANDONED") != nil {
        while true { pause() }
    }
    exit(7)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let abandons = arguments.last == "--abandon"
if abandons { arguments.removeLast() }
say("parent's guard \(String(appex_stack_guard(), radix: 16))")
guard appex_become_subreaper() == 0 else { say("not a subreaper"); exit(2) }
var unreadable: UnsafePointer<CChar>?
guard appex_thread_ids_find(&unreadable) >= 0 else { say("can't vouch for \(unreadable.map { String(cString: $0) } ?? "?")"); exit(2) }

var launch = ProcessLaunch(executable: "/proc/self/exe", environment: ["GREETING": "hello"].merging(abandons ? ["ABANDONED": "1"] : [:]) { $1 },
                           descriptors: [(FileDescriptor(owning: 1), 1)], diesWithParent: abandons)
var context: UnsafeMutablePointer<CChar>?
if let mode = arguments.first, mode != "plain", let folder = arguments.dropFirst().first {
    let grant = mode == "confined" ? "\(folder)/link/allowed" : "\(folder)/allowed"
    let profile = SandboxProfile(executable: SandboxProfile.systemExecutable, readOnly: SandboxProfile.systemReadOnly + [grant],
                                 readWrite: SandboxProfile.systemReadWrite, confined: mode == "confined" ? [folder] : [])
    do {
        launch.restrictions = try Sandbox(isStrict: false).restrictions(for: profile)
    } catch {
        say("no sandbox: \(error)")
        exit(2)
    }
    context = strdup(folder)
}
do {
    let child = try launch.forkRunning(body, context: context.map { UnsafeMutableRawPointer($0) })
    say("started \(launch.restrictions?.namespaces.contains(.pid) == true ? "an init" : "the program")")
    if abandons {
        // Once the child has said it runs: it then dies with this process, or holds the
        // test's pipe open for ever.
        usleep(300_000)
        say("abandoning it")
        _exit(0)
    }
    guard child.waitForExit(timeoutMilliseconds: 20_000) else {
        child.kill()
        say("timed out")
        exit(1)
    }
    say("ended: \(child.reap().map { "\($0)" } ?? "not reaped")")
} catch {
    say("failed: \(error)")
    exit(3)
}
