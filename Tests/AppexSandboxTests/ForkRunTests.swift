import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// A child forked to run code its parent has loaded, not to exec a program, as a launcher that
/// preloads the runtime forks extensions (`ProcessLaunch.forkRunning`, docs/zygote.md): it
/// gets the environment, the descriptors and the sandbox a spawned child gets, runs as pid 2
/// of its pid namespace under an init, and is reaped and reported as a spawned one is. Each
/// runs in `AppexForkRunLauncher`, which must be a subreaper, as a test process must not be.
@Suite(.timeLimit(.minutes(2))) struct ForkRunTests {
    static let launcher = AppexBuild.products.appendingPathComponent("AppexForkRunLauncher")

    func launch(_ arguments: [String]) async throws -> CommandRunner.Result {
        try await CommandRunner(executable: Self.launcher, environment: ProcessInfo.processInfo.environment).run(arguments)
    }

    /// A folder with a file the sandbox grants and one it doesn't.
    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fork-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["allowed", "forbidden"] { try Data(name.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test func aForkedChildRunsWithTheEnvironmentItWasGiven() async throws {
        let result = try await launch(["plain"])
        #expect(result.status == 0, "\(result.standardOutput)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("started the program"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("pid ") && $0.hasSuffix(" greeting hello") }, "\(lines)")
        #expect(lines.last == "ended: exited with status 7", "\(lines)")
    }

    /// Every child forked from one launcher would otherwise share its stack-protector canary.
    @Test func aForkedChildHasAStackGuardOfItsOwn() async throws {
        let result = try await launch(["plain"])
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let parent = try #require(lines.first { $0.hasPrefix("parent's guard ") }?.dropFirst(15))
        let child = try #require(lines.first { $0.hasPrefix("child's guard ") }?.dropFirst(14))
        #expect(parent != "0" && child != "0" && parent != child, "\(lines)")
        #expect(UInt64(child, radix: 16).map { $0 & 0xff == 0 } == true, "the lowest byte stays zero: \(child)")
    }

    @Test func aSandboxedOneIsPidTwoUnderAnInitAndReadsOnlyWhatIsGranted() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await launch(["sandboxed", folder.path])
        #expect(result.status == 0, "\(result.standardOutput)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("started an init"), "\(lines)")
        #expect(lines.contains("pid 2 greeting hello allowed: read forbidden: Permission denied"), "\(lines)")
        // The program's status, which the init reported before it exited.
        #expect(lines.last == "ended: exited with status 7", "\(lines)")
    }

    /// A child that is to die with its launcher does, with or without a pid namespace: the
    /// test's pipe, which only the child holds once the launcher has gone, then closes. Under
    /// an init, whose parent is not the launcher, the init's watch of the launcher ends it.
    @Test(arguments: [false, true]) func aChildDiesWithItsLauncher(sandboxed: Bool) async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await launch((sandboxed ? ["sandboxed", folder.path] : ["plain"]) + ["--abandon"])
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains(" greeting hello") && result.standardOutput.contains("abandoning it"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(sandboxed ? "started an init" : "started the program"), "\(result.standardOutput)")
    }

    /// A step of the sandbox that fails fails the launch, says which, and leaves no process.
    @Test func aGrantThroughALinkFailsTheLaunch() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: folder.path)
        let result = try await launch(["confined", folder.path])
        #expect(result.status == 3, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("failed: ") && result.standardOutput.contains("symbolic link"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("greeting"), "\(result.standardOutput)")
    }
}
