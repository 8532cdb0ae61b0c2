// A program linked to the shared Swift libraries that forks a child to run Swift code in, as a
// launcher that preloads the runtime does, and reports how the child ended
// (ForkedRuntimeTests):
//
//     AppexForkedRuntime forget   the child forgets the thread ids it inherited first
//     AppexForkedRuntime keep     it doesn't
//     AppexForkedRuntime find     only looks for the caches, and says how many or why not
//
// The parent first takes a Mutex on its main thread, which fills that thread's cache, as the
// runtime's and Foundation's initializers fill theirs. The child then holds the Mutex while a
// thread of its own waits for it, so that it must hand the lock over through the kernel,
// which goes by the thread id in the lock's word.
import CAppexSystem
import Dispatch
import Foundation
import Glibc
import Synchronization

let mutex = Mutex(0)

/// Writes a line straight to standard output, with no buffer for the child to inherit.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// Runs Swift in the child: a contended Mutex, libdispatch's pool, Foundation. Ends it.
func runChild() -> Never {
    var waiter = pthread_t()
    mutex.withLock { _ in
        pthread_create(&waiter, nil, { _ in mutex.withLock { $0 += 1 }; return nil }, nil)
        usleep(200_000)
    }
    pthread_join(waiter, nil)
    let group = DispatchGroup()
    // An atomic, not a Mutex: ThreadSanitizer can't see a Mutex's hand-over through the kernel.
    let counted = Atomic(0)
    for _ in 0..<8 { DispatchQueue.global().async(group: group) { counted.add(1, ordering: .relaxed) } }
    group.wait()
    let encoded = try? JSONEncoder().encode(["counted": counted.load(ordering: .relaxed)])
    exit(encoded == nil || mutex.withLock({ $0 }) != 2 ? 4 : 0)
}

mutex.withLock { $0 += 1 }
_ = try JSONEncoder().encode(["warm": Date().description])

let mode = CommandLine.arguments.dropFirst().first ?? "forget"
if mode == "find" || mode == "forget" {
    var unreadable: UnsafePointer<CChar>?
    let found = appex_thread_ids_find(&unreadable)
    guard found >= 0 else {
        say("can't vouch for \(unreadable.map { String(cString: $0) } ?? "?"): \(String(cString: strerror(errno)))")
        exit(3)
    }
    say("found \(found)")
    if mode == "find" { exit(0) }
}

let child = fork()
if child == 0 {
    alarm(20)
    if mode == "forget" && appex_thread_ids_forget() <= 0 { _exit(5) }
    runChild()
}
var status: Int32 = 0
while waitpid(child, &status, 0) < 0 && errno == EINTR {}
if status & 0x7f != 0 {
    say("child killed by signal \(status & 0x7f)")
    exit(1)
}
say("child exited \((status >> 8) & 0xff)")
exit((status >> 8) & 0xff == 0 ? 0 : 1)
