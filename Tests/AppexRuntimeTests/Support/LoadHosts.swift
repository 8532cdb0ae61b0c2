import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Glibc
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
        /// Each request's latency, begin to outcome, by what it was expected to do.
        var latenciesMilliseconds: [String: [Double]]
        var ended: [String: Int]
        var wrong: [String]
        var wrongCount: Int
        var lost: Int
        var doubled: Int
    }

    /// How one host ended: its exit status, and its report if it finished.
    struct Run: Sendable {
        var status: AppexSystem.ExitStatus?
        var report: Report?
        var standardError: String
    }

    /// Hosts started together, each a process of its own, spawned directly: a hundred
    /// CommandRunners would be a hundred waiting threads.
    struct Running: Sendable {
        let processes: [ProcessDescriptor]
        let outputs: [(standardOutput: URL, standardError: URL)]

        /// The hosts still at work.
        var atWork: [ProcessDescriptor] { processes.filter { !$0.hasExited } }

        /// Waits for every host to exit, and returns how each ended.
        func finish() async -> [Run] {
            while !atWork.isEmpty { try? await Task.sleep(for: .milliseconds(50)) }
            return zip(processes, outputs).map { process, output in
                let status = process.reap()
                let report = status == .exited(0)
                    ? (try? Data(contentsOf: output.standardOutput)).flatMap { try? JSONDecoder().decode(Report.self, from: $0) } : nil
                return Run(status: status, report: report,
                           standardError: (try? String(contentsOf: output.standardError, encoding: .utf8)) ?? "")
            }
        }
    }

    /// Starts `hosts` hosts at once, each to make `requests` requests of `plan` (entries of
    /// IDENTIFIER=EXPECTATION, Tests/Fixtures/LoadHost/main.swift). An appexd a host starts
    /// on demand gets the same settings as the world's.
    static func start(hosts: Int, requests: Int, plan: [String], world: FaultWorld) throws -> Running {
        let folder = world.test.scratch.appendingPathComponent("load-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let environment = world.test.environment.merging(FaultWorld.daemonSettings) { $1 }
        var processes: [ProcessDescriptor] = []
        var outputs: [(URL, URL)] = []
        for index in 0..<hosts {
            let output = (folder.appendingPathComponent("\(index).out"), folder.appendingPathComponent("\(index).err"))
            let standardOutput = try FileDescriptor.open(output.0.path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            let standardError = try FileDescriptor.open(output.1.path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            defer {
                standardOutput.close()
                standardError.close()
            }
            let launch = ProcessLaunch(executable: AppexBuild.products.appendingPathComponent("AppexLoadHost").path,
                                       arguments: [String(requests)] + plan, environment: environment,
                                       descriptors: [(standardOutput, 1), (standardError, 2)])
            processes.append(try launch.spawn())
            outputs.append(output)
        }
        return Running(processes: processes, outputs: outputs)
    }

    /// Runs `hosts` hosts at once to the end, and returns how each ended.
    static func run(hosts: Int, requests: Int, plan: [String], world: FaultWorld) async throws -> [Run] {
        try await start(hosts: hosts, requests: requests, plan: plan, world: world).finish()
    }

    /// The `fraction` quantile of `values`, which must not be empty.
    static func quantile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }
}
