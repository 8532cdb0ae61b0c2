// An extension linked to the shared Swift libraries, as `swift build` links one unless told
// otherwise (appexd and the sample extensions link them statically). The shared runtime runs
// its initializers before any of the program's, and its locks name their holder by the
// thread id each thread noted the first time it locked one. So this extension checks that
// the launcher's pid-namespace init (CAppexSystem's init.c) leaves the program a runtime
// whose main thread knows its own id: before it checks in, its main thread runs a global's
// slow initializer while a second thread waits for the same global, which makes the main
// thread hand the runtime's lock over through the kernel, by its id.
import AppexKit
import Foundation

let waiter = Thread {
    usleep(50_000)
    _ = slowlyInitialized
}
waiter.start()
_ = slowlyInitialized

NSExtensionMain()
