import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Hosts under load while everything around them fails: extensions crash, hang and outgrow
/// their memory, hosts are killed mid-request, and appexd itself is killed twice and started
/// again on demand. No request of a host that lived is lost or ends twice, each ends for the
/// right reason, and nothing is left running.
@Suite(.serialized, .timeLimit(.minutes(10)), .enabled(if: LoadHosts.areWanted, LoadHosts.whyApart),
        .enabled(if: !Sanitizers.areActive, "a sanitizer's slowness and quarantined memory distort what the chaos test measures"))
final class ChaosTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.install("echo", "neverAnswers", "crashInRequest", "exceedsMemory")
        try await world.startDaemon()
    }

    /// Each request may also end because appexd went away, or be refused while it is away.
    static let plan = Array(repeating: "\(FaultWorld.identifier("echo"))=completed+daemon", count: 6) + [
        "\(FaultWorld.identifier("neverAnswers"))=cancelled+daemon",
        "\(FaultWorld.identifier("crashInRequest"))=crashed+daemon",
        "\(FaultWorld.identifier("echo"))=completed+daemon",
        "\(FaultWorld.identifier("exceedsMemory"))=memory+daemon",
    ]

    /// Kills appexd with SIGKILL, then waits until a host has started another on demand.
    func killDaemon() async throws -> Bool {
        let killed = world.daemons()
        try #require(!killed.isEmpty, "an appexd to kill")
        for pid in killed { kill(pid, SIGKILL) }
        return await eventually(seconds: 60) {
            let now = self.world.daemons()
            return !now.isEmpty && Set(now).isDisjoint(with: killed)
        }
    }

    @Test func killsCrashesAndHangsLoseNoOutcomeAndDoubleNone() async throws {
        let hosts = 20
        let requests = 300
        let load = try LoadHosts.start(hosts: hosts, requests: requests, plan: Self.plan, world: world)
        // A step that throws leaves no host behind.
        defer { load.atWork.forEach { $0.send(signal: SIGKILL) } }

        // The chaos, each step while the hosts are still at work.
        var atWork: [String: Int] = [:]
        try await Task.sleep(for: .seconds(3))
        atWork["first kill of appexd"] = load.atWork.count
        #expect(try await killDaemon(), "a host started appexd again: \(world.daemonLog.suffix(2000))")
        try await Task.sleep(for: .seconds(2))
        let victims = Array(load.atWork.prefix(3))
        atWork["hosts killed"] = victims.count
        for victim in victims { victim.send(signal: SIGKILL) }
        try await Task.sleep(for: .seconds(2))
        atWork["second kill of appexd"] = load.atWork.count
        #expect(try await killDaemon(), "a host started appexd again: \(world.daemonLog.suffix(2000))")

        let runs = await load.finish()
        #expect(victims.count == 3 && atWork.values.allSatisfy { $0 >= 3 }, "every step came while hosts were at work: \(atWork)")
        let killed = runs.filter { $0.status == AppexSystem.ExitStatus.signaled(SIGKILL, coreDumped: false) }
        let reports = runs.compactMap(\.report)
        #expect(killed.count == victims.count && reports.count == hosts - victims.count,
                "only the killed hosts have no report: \(runs.filter { $0.report == nil }.map { "\(String(describing: $0.status)): \($0.standardError.suffix(500))" })")
        let wrong = reports.flatMap(\.wrong)
        #expect(reports.allSatisfy { $0.wrongCount == 0 }, "each request ended as it should: \(wrong.prefix(10))")
        #expect(reports.allSatisfy { $0.lost == 0 && $0.doubled == 0 }, "each got exactly one outcome")
        #expect(reports.allSatisfy { $0.ended.values.reduce(0, +) == requests }, "every request is counted once")
        let ended = reports.reduce(into: [String: Int]()) { total, report in total.merge(report.ended, uniquingKeysWith: +) }

        // The last appexd serves on, and ends every extension once its hosts have gone.
        #expect(await eventually(seconds: 60) { self.world.extensionProcesses().isEmpty },
                "\(world.extensionProcesses().count) extension processes left")
        #expect(world.daemons().count == 1, "one appexd: \(world.daemons())")
        let served = try await world.appex.run(["ps"])
        #expect(served.status == 0, "\(served.standardError)")
        print("chaos: \(hosts) hosts × \(requests) requests, appexd killed twice and \(victims.count) hosts killed (hosts at work at each step: \(atWork)): \(ended)")
    }
}
