import AppexSamples
import AppexTesting
import Foundation
import Glibc

/// A private home with every sample app installed, and the `appex` command for it. The
/// appexd it starts on demand is killed when it goes away.
final class SampleHome {
    let test: TestHome
    let appex: CommandRunner

    init() async throws {
        test = try TestHome()
        try FileManager.default.createDirectory(at: test.scratch, withIntermediateDirectories: true)
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
        for app in try await AssembledSamples.apps() {
            let installed = try await appex.run(["install", app.path])
            guard installed.status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: installed.standardError]) }
        }
    }

    deinit {
        for pid in test.daemonProcessIDs() { kill(pid, SIGKILL) }
    }

    /// Runs `appex ARGUMENTS…` on a new pseudo-terminal.
    func terminal(_ arguments: [String]) throws -> PseudoTerminal {
        try PseudoTerminal(AppexBuild.products.appendingPathComponent("appex"), arguments, environment: test.environment)
    }
}
