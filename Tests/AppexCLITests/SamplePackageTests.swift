@testable import AppexSamples
import AppexTesting
import Foundation
import Testing

/// The samples' package, built on first use: a build that fails, or that has nothing to
/// build, says what, where, and what to do.
struct SamplePackageTests {
    @Test func aPackageThatDoesntCompileSaysSoWithTheEndOfItsOutputAndKeepsTheLog() async throws {
        let folder = try TemporaryDirectory()
        let package = folder.url.appendingPathComponent("Broken")
        try FileManager.default.createDirectory(at: package.appendingPathComponent("Sources/Broken"), withIntermediateDirectories: true)
        try Data("""
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(name: "Broken", targets: [.executableTarget(name: "Broken")])
            """.utf8).write(to: package.appendingPathComponent("Package.swift"))
        try Data("let answer: Int = \"forty-two\"\n".utf8).write(to: package.appendingPathComponent("Sources/Broken/main.swift"))
        let scratch = folder.url.appendingPathComponent("build")

        let failure = await #expect(throws: SampleBuildError.self) {
            try await onThread { try SamplePackage.build(package, into: scratch, options: []) }
        }
        guard case .failed(let command, let status, let log, let tail)? = failure else {
            Issue.record("\(String(describing: failure))")
            return
        }
        #expect(status == 1)
        #expect(command.hasSuffix("build --package-path \(package.path) --scratch-path \(scratch.path)"), "\(command)")
        #expect(tail.contains("main.swift:1:") && tail.contains("error:"), "the compiler's error: \(tail)")
        #expect(try String(contentsOf: log, encoding: .utf8).contains("error:"), "the whole output is kept")
        #expect(log.path.hasPrefix(scratch.path), "in the build folder")
        let description = "\(failure!)"
        #expect(description.contains("building the package failed (status 1)") && description.contains(log.path), "\(description)")
    }

    @Test func aFolderWithoutThePackageSaysToRunFromACheckout() throws {
        let folder = try TemporaryDirectory()
        #expect {
            _ = try SamplePackage.build(folder.url, into: folder.url.appendingPathComponent("build"), options: [])
        } throws: { error in
            guard case .noSources(let missing) = error as? SampleBuildError else { return false }
            return missing == folder.url && "\(error)".contains("built from an Appex source checkout")
        }
    }

    @Test func theSamplesAreBuiltBesideTheRunningBuildInItsConfiguration() {
        #expect(SamplePackage.scratch.path.hasSuffix("/samples"))
        #expect(SamplePackage.options.starts(with: ["--configuration", AppexBuild.products.lastPathComponent]))
        #expect(FileManager.default.fileExists(atPath: SamplePackage.sources.appendingPathComponent("Package.swift").path))
    }
}
