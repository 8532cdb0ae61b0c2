import AppexCore
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// Host processes (the AppexLoadHost fixture) making requests at once against a world's
/// appexd, for the load and chaos tests.
enum LoadHosts {
    /// Whether this run includes the load and chaos tests: with `APPEX_LOAD_TESTS=1`, as
    /// `.ci/run` sets for a run of their own after the whole suite.
    static let areWanted = ProcessInfo.processInfo.environment["APPEX_LOAD_TESTS"] == "1"
    static let whyApart: Comment = "APPEX_LOAD_TESTS=1 runs them, on their own: on two cores, a hundred hosts would starve the suites beside them"

    /// What one host reports.
    struct Report: Decodable, Sendable {
        var latenciesMilliseconds: [Double]
        var ended: [String: Int]
        var wrong: [String]
        var wrongCount: Int
        var lost: Int
        var doubled: Int
    }

    /// How one host ended: its exit status, and its report if it finished.
    struct Run: Sendable {
        var status: Int32
        var report: Report?
        var standardError: String
    }

    /// Runs `hosts` hosts at once, each making `requests` requests of `plan` (entries of
    /// IDENTIFIER=EXPECTATION, Tests/Fixtures/LoadHost/main.swift), and returns how each ended.
    /// An appexd a host starts on demand gets the same settings as the world's.
    static func run(hosts: Int, requests: Int, plan: [String], world: FaultWorld) async throws -> [Run] {
        let host = CommandRunner(executable: SampleApps.products.appendingPathComponent("AppexLoadHost"),
                                 environment: world.test.environment.merging(FaultWorld.daemonSettings) { $1 })
        return try await withThrowingTaskGroup(of: Run.self) { group in
            for _ in 0..<hosts {
                group.addTask {
                    let result = try await host.run([String(requests)] + plan)
                    let report = result.status == 0 ? try? JSONDecoder().decode(Report.self, from: Data(result.standardOutput.utf8)) : nil
                    return Run(status: result.status, report: report, standardError: result.standardError)
                }
            }
            var runs: [Run] = []
            for try await run in group { runs.append(run) }
            return runs
        }
    }

    /// The `fraction` quantile of `values`, which must not be empty.
    static func quantile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    /// The live host processes of `world`'s home.
    static func processes(of world: FaultWorld) -> [Int32] {
        let home = "APPEX_HOME=\(world.test.home.dataDirectory.path)"
        return FaultWorld.processes().filter { pid in
            guard FaultWorld.executable(of: pid)?.hasSuffix("/AppexLoadHost") == true,
                  let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environment.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == home }
        }
    }
}
