import AppexCore
import AppexRegistry
import AppexSystem
import Foundation
import Glibc

extension Supervisor {
    /// How long a process stopped for a debugger may take to check in: a day, in place of
    /// its point's launch deadline.
    static let debuggerDeadline: Duration = .seconds(86_400)

    /// Says in the log which pid a debugger attaches to (the program's, under the init of
    /// its pid namespace that appexd spawned), and sends the program SIGCONT once a debugger
    /// has attached, which ends its wait when the debugger continues it.
    func announceDebuggerWait(_ record: ExtensionProcessRecord) {
        let label = record.label
        let initPID = record.process.processID
        let executable = record.installed.executableURL.path
        Thread.detachNewThread {
            for _ in 0..<300 {
                if let program = ProcessTree.descendants(of: initPID).first(where: { ProcessTree.executablePath(of: $0) == executable }) {
                    DaemonLog.write(line: "appexd: \(label) waits for a debugger before its principal class is made: "
                        + "attach with `lldb -p \(program)` (or `gdb -p \(program)`), set breakpoints, then continue")
                    Self.continueOnceTraced(program, label: label)
                    return
                }
                if ProcessTree.hasExited(initPID) { return }
                usleep(100_000)
            }
            DaemonLog.write(line: "appexd: \(label) was started to wait for a debugger, but its program did not start within 30 s")
        }
    }

    /// Waits for `program` to have a tracer, then sends it SIGCONT.
    private static func continueOnceTraced(_ program: Int32, label: String) {
        while !ProcessTree.hasExited(program) {
            if let tracer = ProcessTree.tracer(of: program) {
                DaemonLog.write(line: "appexd: \(label): a debugger (pid \(tracer)) attached to pid \(program); it goes on when the debugger continues it")
                Glibc.kill(program, SIGCONT)
                return
            }
            usleep(100_000)
        }
    }
}
