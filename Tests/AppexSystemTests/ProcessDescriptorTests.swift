@testable import AppexSystem
import Foundation
import Glibc
import Testing

/// Ending a sandboxed process's children by pid, as read from /proc, without ending another
/// process that took one of those pids meanwhile.
struct ProcessDescriptorTests {
    /// The parent's child is ended; a stranger among the pids, as a child's pid reused by
    /// another process would be, is not.
    @Test func killingAProcesssChildrenSparesAPidThatIsNoLongerOneOfThem() throws {
        let parent = try PythonProgram("""
            import os, sys, time
            child = os.fork()
            if child == 0:
                time.sleep(60)
                os._exit(0)
            print(child, flush=True)
            os.waitpid(child, 0)
            """)
        let stranger = try ProcessLaunch(executable: "/bin/sleep", arguments: ["60"], environment: [:]).spawn()
        defer {
            stranger.send(signal: SIGKILL)
            stranger.waitForExit(timeoutMilliseconds: 10_000)
            _ = stranger.reap()
            parent.process.send(signal: SIGKILL)
            parent.process.waitForExit(timeoutMilliseconds: 10_000)
            _ = parent.process.reap()
        }
        var said = [UInt8](repeating: 0, count: 32)
        let count = read(parent.stdout.rawValue, &said, said.count)
        let child = try #require(Int32(String(decoding: said.prefix(max(count, 0)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(ProcessTree.children(of: parent.process.processID) == [child])

        parent.process.killChildren(among: [stranger.processID, child])
        #expect(parent.process.waitForExit(timeoutMilliseconds: 20_000), "the child ended, so its parent, which waited for it, ended too")
        #expect(parent.process.reap() == .exited(0))
        #expect(!stranger.hasExited, "the stranger lives")
    }
}
