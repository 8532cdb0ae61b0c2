import AppexCore
import AppexHost
import AppexItems
import AppexLocking
import AppexRegistry
import AppexSandbox
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// Attempts an extension makes under the real appexd, in the real sandbox, that must fail;
/// each with what the same extension may do beside it, so a broken extension can't pass.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
final class SandboxedExtensionTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try FileManager.default.createDirectory(at: userRuntime, withIntermediateDirectories: true)
        try await world.startDaemon(["APPEX_PROCESS_LIMIT": "\(Self.processLimit)", "XDG_RUNTIME_DIR": userRuntime.path])
        try await world.install("attempts")
    }

    /// The cap on each extension's processes and threads in these tests.
    static let processLimit = 32

    /// Runs the `attempts` fault with `lines` and returns its answer, one line per attempt.
    func attempt(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let outcome = try await world.extension("attempts").outcome([textItem(lines.joined(separator: "\n"))])
        let text = try #require(outcome.items?.first?.attributedContentText?.string, "\(outcome)", sourceLocation: sourceLocation)
        return text.split(separator: "\n").map(String.init)
    }

    /// A file with something in it at `path`, made by the test.
    func secret(at url: URL) throws -> String {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: url)
        return url.path
    }

    var ownContainer: URL { world.test.home.container(for: "com.example.faults.attempts") }

    /// The user's runtime folder as appexd is told it (`XDG_RUNTIME_DIR`), where a session
    /// bus, a display server and agents listen.
    var userRuntime: URL { world.root.appendingPathComponent("user-runtime") }

    @Test func readingTheUsersHomeFails() async throws {
        let home = try secret(at: world.root.appendingPathComponent("user-home/notes.txt"))
        let results = try await attempt(["read \(home)", "read \(NSHomeDirectory())", "read /usr/bin/env"])
        #expect(results == ["refused: Permission denied", "refused: Permission denied", "allowed"], "\(results)")
    }

    @Test func withTheSandboxOffTheSameAttemptsSucceedAndAppexdSaysSo() async throws {
        let unsandboxed = try FaultWorld()
        try await unsandboxed.startDaemon([Sandbox.offSetting.name: Sandbox.offSetting.value])
        try await unsandboxed.install("attempts")
        let home = try secret(at: unsandboxed.root.appendingPathComponent("user-home/notes.txt"))
        let socket = unsandboxed.test.home.daemonSocketURL.path
        let outcome = try await unsandboxed.extension("attempts").outcome([textItem("read \(home)\nunix \(socket)")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed\nallowed", "\(outcome)")
        #expect(unsandboxed.daemonLog.contains("APPEX_SANDBOX=off: com.example.faults.attempts runs with no sandbox at all"),
                "\(unsandboxed.daemonLog)")
    }

    @Test func readingAnotherAppsContainerFails() async throws {
        let other = try secret(at: world.test.home.container(for: "com.example.other").appendingPathComponent("data.txt"))
        let results = try await attempt(["read \(other)", "write \(ownContainer.path)/mine.txt", "read \(ownContainer.path)/mine.txt"])
        #expect(results == ["refused: Permission denied", "allowed", "allowed"], "\(results)")
    }

    @Test func readingAGroupContainerItIsNotEntitledToFails() async throws {
        let group = try secret(at: world.test.home.groupContainer(for: "group.com.example.other").appendingPathComponent("shared.txt"))
        let results = try await attempt(["read \(group)"])
        #expect(results == ["refused: Permission denied"], "\(results)")
    }

    @Test func writingOutsideItsContainerFails() async throws {
        let outside = world.root.appendingPathComponent("written-by-extension.txt")
        let results = try await attempt(["write \(outside.path)", "write /tmp/appex-sandbox-escape-\(getpid())",
                                         "write \(ownContainer.path)/tmp/scratch.txt"])
        #expect(results == ["refused: Permission denied", "refused: Permission denied", "allowed"], "\(results)")
        #expect(!FileManager.default.fileExists(atPath: outside.path))
    }

    @Test func theRegistryAndTheDataFolderAreOutOfReachAndTheFolderIsTheUsersAlone() async throws {
        let data = world.test.home.dataDirectory
        let registry = world.test.home.registryURL.path
        let mode = try #require(FileManager.default.attributesOfItem(atPath: data.path)[.posixPermissions] as? Int)
        #expect(mode == 0o700, "other users can't list or open the registry: \(String(mode, radix: 8))")
        let results = try await attempt(["stat \(registry)", "read \(registry)", "read \(data.path)", "write \(data.path)/planted.txt",
                                         "write \(registry)"])
        // It exists, where the extension looks: the refusals are Landlock's.
        #expect(results == ["allowed", "refused: Permission denied", "refused: Permission denied", "refused: Permission denied",
                            "refused: Permission denied"], "\(results)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("planted.txt").path))
    }

    @Test func ptraceOfTheHostOrOfAppexdFails() async throws {
        let daemon = try #require(world.everyDaemon.first)
        let results = try await attempt(["ptrace \(getpid())", "ptrace \(daemon)"])
        // Neither is in its pid namespace, and the seccomp baseline refuses ptrace anyway.
        #expect(results.allSatisfy { $0.hasPrefix("refused: ") }, "\(results)")
    }

    /// Another extension's channels are unnamed socket pairs, so the only ways to them are
    /// through its process: its `/proc` entry, a pidfd, ptrace.
    @Test(.enabled(if: Sandbox.KernelSupport.current.isolationProblem == nil && Sandbox.KernelSupport.current.seccomp))
    func anotherExtensionsChannelsAreOutOfReach() async throws {
        try await world.install("attempts", "neverAnswers")
        let neverAnswers = try await world.extension("neverAnswers")
        let waiting = try await neverAnswers.beginExtensionRequest(withInputItems: [textItem("never answered")])
        defer { neverAnswers.cancelExtensionRequest(withIdentifier: waiting) }
        // The extension itself, not its pid namespace's init: the one that holds a session (4).
        func holdingASession() -> Int32? { world.extensionProcesses().first { FileManager.default.fileExists(atPath: "/proc/\($0)/fd/4") } }
        // Kept from the check that found it: as the sandbox starts, its init holds the session
        // for a moment before the program does, so a second look may find neither.
        let found = Locked<Int32?>(nil)
        #expect(await eventually { found.withLock { $0 = holdingASession(); return $0 != nil } })
        let other = try #require(found.withLock { $0 })
        let results = try await attempt(["stat /proc/\(other)/fd/3", "getfd \(other) 3", "getfd \(other) 4", "ptrace \(other)",
                                         "getfd 1 2", "stat /proc/self/fd/3"])
        // Not in its pid namespace, so there is no such process; and pidfd_getfd is refused
        // even on a process it can see (its init, pid 1).
        #expect(results == ["refused: No such file or directory", "refused: No such process", "refused: No such process",
                            "refused: Operation not permitted", "refused: Operation not permitted", "allowed"], "\(results)")
    }

    @Test(.enabled(if: Sandbox.KernelSupport.current.seccomp))
    func connectingToAnyUnixSocketByItsPathFails() async throws {
        // Landlock doesn't govern connecting to a Unix socket by its path, so the seccomp
        // baseline refuses to make one: appexd's, a session bus in the user's runtime folder,
        // and an agent's anywhere else are all out of reach.
        let agent = world.root.appendingPathComponent("agent.sock").path
        let bus = userRuntime.appendingPathComponent("bus").path
        let listeners = try [agent, bus].map { path throws(SystemError) in try UnixSocket.listen(at: path) }
        defer { listeners.forEach { $0.close() } }
        let socket = world.test.home.daemonSocketURL.path
        #expect(FileManager.default.fileExists(atPath: socket))
        let results = try await attempt(["unix \(socket)", "unix \(bus)", "unix \(agent)", "socketpair -"])
        #expect(results == Array(repeating: "refused: Permission denied", count: 3) + ["allowed"], "\(results)")
        // The same connections from outside the sandbox succeed.
        for path in [agent, bus] { try UnixSocket.connect(to: path).close() }
    }

    @Test(.enabled(if: Sandbox.KernelSupport.current.isolationProblem == nil))
    func theFoldersOfOtherProgramsSocketsAreHidden() async throws {
        // Where seccomp is missing, hiding these folders in the mount namespace still keeps
        // the best-known sockets out of reach.
        let bus = userRuntime.appendingPathComponent("bus").path
        let listener = try UnixSocket.listen(at: bus)
        defer { listener.close() }
        let socket = world.test.home.daemonSocketURL.path
        let results = try await attempt(["stat \(socket)", "stat \(bus)", "stat \(ownContainer.path)"])
        #expect(results == ["refused: No such file or directory", "refused: No such file or directory", "allowed"], "\(results)")
    }

    @Test func aTCPConnectionWithoutTheNetworkEntitlementFails() async throws {
        let listener = LoopbackSocket()
        let results = try await attempt(["connect \(listener.port)"])
        listener.close()
        #expect(results == ["refused: Permission denied"], "\(results)")
    }

    @Test(.enabled(if: (try? Cgroup.Parent.discover(.pids).get()) != nil, "no pids cgroup can be made here"))
    func forkingPastTheProcessLimitFails() async throws {
        let results = try await attempt(["fork 3", "fork \(Self.processLimit)"])
        try #require(results.count == 2, "\(results)")
        #expect(results[0] == "allowed")
        // Its threads and its init count too, so it makes fewer children than the limit.
        let refusal = try #require(results[1].firstMatch(of: /refused: Resource temporarily unavailable after (\d+)/), "\(results)")
        #expect((1..<Self.processLimit).contains(Int(refusal.1) ?? 0), "\(results)")
        #expect(world.extensionSessions().count <= 1, "the children were reaped")
    }

    /// The review's escape, end to end: a `Frameworks` that leads to `/` through a chain of
    /// links was granted as `/`, and the extension read the user's files. Planted in the
    /// installed copy (validation and install refuse such a bundle), it now fails the launch,
    /// naming the path, and the extension never runs.
    @Test func aFrameworksFolderThatLeadsToTheRootThroughLinksFailsTheLaunchAndNamesIt() async throws {
        let home = try secret(at: world.root.appendingPathComponent("user-home/notes.txt"))
        let app = try #require(try Registry(home: world.test.home).app(FaultWorld.appIdentifier)).url
        chmod(app.path, 0o755)
        let up = app.appendingPathComponent("a/b/up")
        try FileManager.default.createDirectory(at: up.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: up.path, withDestinationPath: "../..")
        try FileManager.default.createSymbolicLink(atPath: app.appendingPathComponent("Frameworks").path,
                                                   withDestinationPath: "a/b/up/" + String(repeating: "../", count: app.pathComponents.count))
        #expect(FileManager.default.fileExists(atPath: app.appendingPathComponent("Frameworks").path + home))
        let target = try await world.extension("attempts")
        let error = await #expect(throws: ErrorInfo.self) { try await target.outcome([textItem("read \(home)")]) }
        #expect(error?.message.contains("granting \(app.path)/Frameworks refused: a symbolic link is on the way") == true,
                "\(String(describing: error))")
        #expect(error?.recoverySuggestion.contains("reinstall the app") == true, "\(String(describing: error))")
        #expect(world.extensionSessions().isEmpty, "the extension never ran")
    }
}
