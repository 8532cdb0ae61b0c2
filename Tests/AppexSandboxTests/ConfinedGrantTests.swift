import AppexSandbox
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// A profile grants what its paths say, whatever is on disk: a path inside a folder others may
/// change (``SandboxProfile/confined``) is opened through no symbolic link, so a link planted
/// on the way fails the launch instead of widening the grant to where it leads.
@Suite(.enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
struct ConfinedGrantTests {
    /// A data folder like appexd's: an installed app whose `Frameworks` the profile grants,
    /// and a secret beside it that no grant covers.
    final class World {
        let scratch: TemporaryDirectory
        var data: URL { scratch.url.appendingPathComponent("data") }
        var app: URL { data.appendingPathComponent("Applications/x-1/X.app") }
        var frameworks: URL { app.appendingPathComponent("Frameworks") }
        var secret: URL { data.appendingPathComponent("Containers/other/secret.txt") }

        init() throws {
            scratch = try TemporaryDirectory()
            try FileManager.default.createDirectory(at: app.appendingPathComponent("a/b/c"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: secret.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "the other app's data".write(to: secret, atomically: true, encoding: .utf8)
        }

        /// The profile of an extension of X.app: it may run and read `Frameworks`.
        var profile: SandboxProfile {
            var profile = testProfile()
            profile.executable += [frameworks.path]
            profile.confined = [data.path]
            return profile
        }

        /// Reads the secret through the granted `Frameworks`, however it is reached.
        func readThroughFrameworks() throws -> SandboxedRun {
            let through = frameworks.path + "/" + String(repeating: "../", count: frameworks.pathComponents.count) + secret.path.dropFirst()
            return try runShell("cat \(through) && echo read-it", profile: profile)
        }
    }

    @Test func aRealFolderIsGrantedAsItsPathSays() throws {
        let world = try World()
        try FileManager.default.createDirectory(at: world.frameworks, withIntermediateDirectories: false)
        try "library".write(to: world.frameworks.appendingPathComponent("lib.txt"), atomically: true, encoding: .utf8)
        let run = try runShell("cat \(world.frameworks.path)/lib.txt; echo; cat \(world.secret.path) || echo refused", profile: world.profile)
        #expect(run.output.hasPrefix("library\n"), "\(run.output)")
        #expect(run.output.contains("refused") && !run.output.contains("other app's"), "\(run.output)")
    }

    /// The review's escape: two links, each staying inside the bundle by its text, whose chain
    /// leads to `/`. Without confinement, the launcher opened `Frameworks` following them and
    /// granted the whole file system.
    @Test func aChainOfRelativeLinksToTheRootFailsTheLaunchAndNamesThePath() throws {
        let world = try World()
        let depth = world.app.appendingPathComponent("a/b/c").pathComponents.count - 1
        try FileManager.default.createSymbolicLink(atPath: world.app.appendingPathComponent("a/b/c/up").path,
                                                   withDestinationPath: "../../..")
        try FileManager.default.createSymbolicLink(atPath: world.frameworks.path,
                                                   withDestinationPath: "a/b/c/up/" + String(repeating: "../", count: depth))
        #expect(FileManager.default.fileExists(atPath: world.frameworks.appendingPathComponent("etc/passwd").path), "the chain leads to /")
        let error = #expect(throws: SandboxError.self) { try world.readThroughFrameworks() }
        guard case .spawnFailed(let failure)? = error else { return }
        #expect(failure.errno == ELOOP, "\(failure)")
        #expect(failure.operation.contains("granting \(world.frameworks.path) refused: a symbolic link is on the way"), "\(failure)")
    }

    @Test func aLinkOnTheWayToAGrantedFolderFailsTheLaunch() throws {
        let world = try World()
        let real = world.scratch.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: real.appendingPathComponent("X.app/Frameworks"), withIntermediateDirectories: true)
        let installed = world.app.deletingLastPathComponent()
        try FileManager.default.removeItem(at: installed)
        try FileManager.default.createSymbolicLink(atPath: installed.path, withDestinationPath: real.path)
        let error = #expect(throws: SandboxError.self) { try world.readThroughFrameworks() }
        guard case .spawnFailed(let failure)? = error else { return }
        #expect(failure.errno == ELOOP, "\(failure)")
    }

    @Test func aFileWhereAGrantedFolderShouldBeFailsTheLaunch() throws {
        let world = try World()
        try "not a folder".write(to: world.frameworks, atomically: true, encoding: .utf8)
        let error = #expect(throws: SandboxError.self) { try world.readThroughFrameworks() }
        guard case .spawnFailed(let failure)? = error else { return }
        #expect(failure.errno == ENOTDIR, "\(failure)")
        #expect(failure.operation.contains("it is not a folder"), "\(failure)")
    }

    @Test func aGrantedFolderThatIsNotThereGrantsNothingAndTheLaunchGoesOn() throws {
        let world = try World()
        let run = try runShell("echo ran; cat \(world.secret.path) || echo refused", profile: world.profile)
        #expect(run.output.hasPrefix("ran\n") && run.output.contains("refused"), "\(run.output)")
    }
}
