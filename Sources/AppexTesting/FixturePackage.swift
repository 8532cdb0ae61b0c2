import AppexSamples
public import Foundation

/// The tests' fixtures that must be built as an author's extension is, linked to the shared
/// AppexKit so that appexd forks them from its launcher (Tests/Fixtures/Programs). Built on
/// first use, once per process, into `fixtures` beside the running tests' build, in their
/// configuration and with their sanitizer, as the samples' package is.
public enum FixturePackage {
    /// The package's folder, in the Appex checkout this was built from.
    public static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/Programs")

    /// The built program `name`, the package built first if it is not yet, or out of date.
    public static func program(_ name: String) async throws -> URL {
        try await onThread { try built.get() }.appendingPathComponent(name)
    }

    /// The first caller builds; the others in the process wait for it.
    private static let built = Result { () throws(SampleBuildError) -> URL in
        try SamplePackage.buildLikeTheRunningProgram(sources, into: SamplePackage.buildFolder(named: "fixtures"))
    }
}
