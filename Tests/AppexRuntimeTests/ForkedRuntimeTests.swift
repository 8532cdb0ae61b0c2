import AppexSamples
import AppexTesting
import Foundation
import Testing

/// A child forked from a process whose Swift runtime has run, to run Swift code rather than
/// exec, as a launcher that preloads the runtime forks extensions: it inherits its parent's
/// cached thread ids, and its first contended lock fails, unless it forgets them first
/// (`appex_thread_ids_find` and `appex_thread_ids_forget`, CAppexSystem's thread_ids.c).
@Suite(.timeLimit(.minutes(2))) struct ForkedRuntimeTests {
    static let executable = AppexBuild.products.appendingPathComponent("AppexForkedRuntime")

    func run(_ mode: String, executable: URL = Self.executable) async throws -> CommandRunner.Result {
        try await CommandRunner(executable: executable, environment: ProcessInfo.processInfo.environment).run([mode])
    }

    @Test func aChildThatForgetsItsParentsThreadIdsHandsALockOver() async throws {
        #expect(try Data(contentsOf: Self.executable).range(of: Data("libswiftCore.so".utf8)) != nil, "the fixture must link the shared Swift runtime")
        let result = try await run("forget")
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        #expect(result.standardOutput.contains("child exited 0"), "\(result.standardOutput)")
        // libswiftCore's, libswift_Concurrency's, libdispatch's, and the Mutex caches of
        // Foundation and of the program itself.
        let found = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("found ") }.flatMap { Int($0.dropFirst(6)) })
        #expect(found >= 5, "\(result.standardOutput)")
    }

    /// What the fix is for: without it, the same child fails at its first contended lock.
    @Test func aChildThatKeepsThemFailsAtItsFirstContendedLock() async throws {
        let result = try await run("keep")
        #expect(result.status == 1, "\(result.standardOutput) \(result.standardError)")
        #expect(result.standardOutput.contains("child killed by signal"), "\(result.standardOutput)")
    }

    /// An object whose symbol table is gone may hold a cache nobody can find, so finding
    /// them fails and names it, rather than let a child run with a stale one.
    @Test func aStrippedProgramCantBeVouchedFor() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("forked-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stripped = folder.appendingPathComponent("stripped")
        try FileManager.default.copyItem(at: Self.executable, to: stripped)
        let strip = try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/strip"), environment: [:]).run([stripped.path])
        try #require(strip.status == 0, "\(strip.standardError)")
        #expect(try await run("find").status == 0)
        let result = try await run("find", executable: stripped)
        #expect(result.status == 3, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("can't vouch for /proc/self/exe"), "\(result.standardOutput)")
    }
}
