import AppexGroups
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Testing

/// Shared defaults written by another process of the group (the AppexGroupsHelper fixture,
/// adding 1 to a number, change after change), killed before each change it makes to the
/// file system: the suite's file is always a whole property list, holding the number as it
/// was at the kill or one more, and the values beside it untouched.
@Suite(.serialized, .enabled(if: CrashTests.areWanted, CrashTests.whyApart)) final class DefaultsCrashTests {
    static let suite = "group.com.example.crash"
    static let changes = 60

    let folder: TemporaryDirectory
    var container: URL { folder.url.appendingPathComponent("container") }
    var preferences: URL { container.appendingPathComponent("Library/Preferences") }

    init() throws {
        folder = try TemporaryDirectory(prefix: "appex-defaults-crash")
    }

    @Test func aWriterKilledAtAnyStepLeavesTheSuiteWholeAndEachChangeMadeOrNot() throws {
        let loop = CrashLoop<DefaultsState>(
            program: helper(["increment", container.path, Self.suite, "count", "\(Self.changes)"]),
            reset: { try self.reset() }, observe: { try self.read() }, recover: { try self.recover() },
            isNext: { recovered, atKill, _ in recovered.count == atKill.count + 1 && recovered.neighbour == atKill.neighbour },
            rerun: { recovered in
                let left = Self.changes - recovered.count
                guard left > 0 else { return }
                let outcome = try self.helper(["increment", self.container.path, Self.suite, "count", "\(left)"]).run()
                guard outcome.status == .exited(0) else { throw RerunFailed(arguments: ["increment"], output: outcome.output) }
            },
            leftovers: {
                let names = try FileManager.default.contentsOfDirectory(atPath: self.preferences.path)
                return names.filter { $0.contains("unfinished") || $0.contains("corrupt") }.map { "\($0) was left in the suite's folder" }
            }
        )
        let report = try loop.run()
        print("shared defaults: \(report.steps) steps, \(report.kills) kills; as at the kill \(report.asAtKill), one change more \(report.advanced); \(report.statesLeft.count) different counts left")
        #expect(report.steps >= 3 * Self.changes, "each change is a copy written and renamed over the file, then counted")
        #expect(report.kills >= 200, "the loop killed the writer at least 200 times")
        #expect(report.kills * 10 >= report.steps * 9, "it was killed before (nearly) every step: a run may make fewer steps than another")
        #expect(report.statesLeft.map(\.count).sorted() == Array(0...Self.changes), "the kills left every count from the first to the last")
        #expect(report.failures.isEmpty, "\(report.failures.prefix(5))")
    }

    // MARK: Helpers

    /// The suite as it is kept: the number changed, and a value no one changes.
    struct DefaultsState: Hashable, CustomStringConvertible {
        var count: Int
        var neighbour: String?
        var description: String { "count \(count), neighbour \(neighbour ?? "missing")" }
    }

    private func helper(_ arguments: [String]) -> SteppedProgram {
        SteppedProgram(executable: AppexBuild.products.appendingPathComponent("AppexGroupsHelper"), arguments: arguments,
                       environment: ["PATH": "/usr/bin:/bin"])
    }

    private func reset() throws {
        try? FileManager.default.removeItem(at: container)
        let defaults = try #require(GroupDefaults(suiteName: Self.suite, container: container))
        defaults.set(0, forKey: "count")
        defaults.set("untouched", forKey: "neighbour")
    }

    /// The file as it is on disk, read as any reader would, without its lock.
    private func read() throws -> DefaultsState {
        let data = try Data(contentsOf: preferences.appendingPathComponent("\(Self.suite).plist"))
        let values = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any], "the suite is a dictionary")
        return DefaultsState(count: try #require(values["count"] as? Int, "count is a number"), neighbour: values["neighbour"] as? String)
    }

    /// The suite as the next process opens it: it removes what a killed writer left unfinished,
    /// and sets aside a file that is not a property list, which must never happen.
    private func recover() throws -> DefaultsState {
        let defaults = try #require(GroupDefaults(suiteName: Self.suite, container: container))
        let names = try FileManager.default.contentsOfDirectory(atPath: preferences.path)
        try #require(!names.contains { $0.contains("corrupt") }, "the suite's file was damaged: \(names)")
        return DefaultsState(count: defaults.integer(forKey: "count"), neighbour: defaults.string(forKey: "neighbour"))
    }
}
