import AppexCore
import AppexRegistry
import AppexSamples
import AppexTesting
import Foundation
import Glibc
import Testing

/// An install killed with SIGKILL at any moment leaves the old state or the new one, never a mix.
@Suite final class CrashRecoveryTests {
    let test: TestHome
    let appex: CommandRunner

    init() throws {
        test = try TestHome()
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
    }

    /// An app heavy enough (thousands of files) that killing its install lands mid-copy.
    func heavyApp(version: String) throws -> URL {
        var app = BundleBuilder.app("com.example.heavy", name: "Heavy", version: version, in: test.scratch.appendingPathComponent("v\(version)"))
        app.addExtension("Widget", identifier: "com.example.heavy.widget", point: "com.apple.widget-extension")
        let url = try app.write()
        let resources = url.appendingPathComponent("Resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        let page = Data(repeating: 0x61, count: 4096)
        for index in 0..<2000 {
            try page.write(to: resources.appendingPathComponent("r\(index).txt"))
        }
        return url
    }

    @Test func aKilledInstallLeavesTheOldOrTheNewStateAndTheNextInstallCleansUp() async throws {
        let old = try heavyApp(version: "1")
        let new = try heavyApp(version: "2")
        #expect(try await appex.run(["install", old.path]).status == 0)
        // Validation of the source takes a few hundred ms here and the copy seconds, so these land in each phase.
        for delay in [100_000, 400_000, 900_000, 1_600_000] as [useconds_t] {
            let process = Process()
            process.executableURL = appex.executable
            process.arguments = ["install", new.path]
            process.environment = appex.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .microseconds(delay))
            kill(process.processIdentifier, SIGKILL)
            await process.exited()

            let registry = try Registry(home: test.home)
            let app = try #require(try registry.app("com.example.heavy"))
            #expect(["1", "2"].contains(app.version))
            // Whichever state it is, it is whole: the bundle the registry names is there, complete.
            #expect(FileManager.default.isExecutableFile(atPath: app.executableURL.path))
            #expect(app.extensions.map(\.identifier) == ["com.example.heavy.widget"])
            let resources = try FileManager.default.contentsOfDirectory(atPath: app.url.appendingPathComponent("Resources").path)
            #expect(resources.count == 2000)
            // Back to version 1 for the next round.
            #expect(try await appex.run(["install", "--allow-downgrade", old.path]).status == 0)
        }
        // Whatever the killed installs left in Applications/ was swept: only the installed copy remains.
        let registry = try Registry(home: test.home)
        let installed = try #require(try registry.app("com.example.heavy"))
        let folders = try FileManager.default.contentsOfDirectory(atPath: test.home.applicationsDirectory.path)
        #expect(folders == [installed.url.deletingLastPathComponent().lastPathComponent])
    }
}
