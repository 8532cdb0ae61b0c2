import AppexFuzzing
import Foundation
import Testing

/// Every seed of every fuzz target, and every input that once broke one, run through the
/// target's checks: they run on each build, not only when someone fuzzes.
@Suite struct SeedReplayTests {
    /// `Fuzz/` at the top of the package.
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files under `Fuzz/<kind>/<target>/`.
    static func inputs(_ kind: String, of target: FuzzTarget) throws -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).sorted { $0.path < $1.path }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySeedKeepsTheInvariants(_ target: FuzzTarget) throws {
        let seeds = try Self.inputs("Corpus", of: target)
        #expect(seeds.count >= 5, "Fuzz/Corpus/\(target.rawValue) should seed the fuzzer with real inputs")
        for seed in seeds {
            #expect(throws: Never.self, "\(seed.lastPathComponent)") { try target.check(Array(try Data(contentsOf: seed))) }
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyInputThatOnceFailedNowPasses(_ target: FuzzTarget) throws {
        for input in try Self.inputs("Regressions", of: target) {
            #expect(throws: Never.self, "\(input.lastPathComponent)") { try target.check(Array(try Data(contentsOf: input))) }
        }
    }
}
