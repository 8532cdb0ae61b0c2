import AppexCore
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// The review's flood: local processes that each greet appexd on 120 connections and begin,
/// on each, a frame carrying 64 descriptors that they never finish. appexd reached 19,999 of
/// its 20,000 descriptors, and every request failed with EMFILE until the frames' deadline.
/// Now each process's unfinished frames may hold 256 descriptors, the connection past that is
/// refused with the reason, and a request made meanwhile is served.
@Suite(.serialized, .timeLimit(.minutes(5)))
final class DescriptorFloodTests {
    let world: FaultWorld

    /// Long enough that the flood's frames are still held, unfinished, until each flood stops
    /// reading: its first frames begin while it opens the rest, which on a loaded machine took
    /// 20 s (CI once saw two of a share closed for their deadline). The floods end long before.
    static let frameDeadline = 240_000

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon(["APPEX_FRAME_DEADLINE_MS": String(Self.frameDeadline)])
        try await world.install("echo")
    }

    /// Starts `processes` floods, each of `connections` connections carrying `descriptors`
    /// each, and waits until every one has begun its frames. Each reads what it is told for
    /// 40 s after it began them, so its share is held while the test looks and asks.
    func flood(processes: Int, connections: Int, descriptors: Int) async throws -> [Task<CommandRunner.Result, any Error>] {
        let runner = CommandRunner(executable: AppexBuild.products.appendingPathComponent("AppexConnectionFlood"), environment: world.test.environment)
        let markers = (0..<processes).map { world.root.appendingPathComponent("flood-\($0)") }
        let floods = markers.map { marker in
            Task { [runner, socket = world.test.home.daemonSocketURL.path] in
                try await runner.run([socket, String(connections), "40", marker.path, String(descriptors)])
            }
        }
        #expect(await eventually(seconds: 120) { markers.allSatisfy { FileManager.default.fileExists(atPath: $0.path) } },
                "every flood began its frames")
        return floods
    }

    @Test func fourProcessesHoldingDescriptorsInUnfinishedFramesAreCappedAndARequestIsServedMeanwhile() async throws {
        let daemon = try #require(world.daemons().first)
        let before = ResourceCounts.held(by: daemon).descriptors
        let floods = try await flood(processes: 4, connections: 120, descriptors: 64)
        // Give appexd time to read what came, then see what it holds.
        try await Task.sleep(for: .seconds(2))
        let during = ResourceCounts.held(by: daemon).descriptors
        let served = try await world.appex.run(["run", FaultWorld.identifier("echo"), "--text", "served during the flood", "--timeout", "30"])
        #expect(served.status == 0, "\(served.standardOutput) \(served.standardError)")
        #expect(served.standardOutput.contains("served during the flood"), "\(served.standardOutput)")

        var refused = 0
        var silent = 0
        var toldAll: [String: Int] = [:]
        for flooding in floods {
            let result = try await flooding.value
            try #require(result.status == 0, "\(result.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let told = try #require(report["told"] as? [String: Int])
            let overShare = told.filter { $0.key.contains("descriptors in frames it has not finished, more than the 256 one process may") }
            #expect(overShare.keys.allSatisfy { $0.hasPrefix("7: ") }, "a protocol error, with the reason: \(told)")
            #expect(report["stillOpen"] as? Int == 4, "its share is held, the rest refused: \(report)")
            refused += overShare.values.reduce(0, +)
            silent += told.filter { $0.key.hasPrefix("13: ") && $0.key.contains("had sent nothing") }.values.reduce(0, +)
            toldAll.merge(told, uniquingKeysWith: +)
        }
        // Each process keeps four frames of 64, its share; the rest of its 120 are refused, with
        // the reason. A few may be refused as silent instead: under this flood appexd has found
        // sockets of greeted connections empty and unread while 64 newer ones waited, not yet
        // explained (docs/threat-model.md, Known gaps 17); appexd logs each push-out.
        let pushedOut = world.daemonLog.split(separator: "\n").filter { $0.contains("pushed out") }
        #expect(refused + silent == 4 * (120 - 4), "\(refused) refused, \(silent) as silent; the connections were told \(toldAll); appexd logged \(pushedOut)")
        #expect(silent <= 4, "\(silent) refused as silent; appexd logged \(pushedOut)")
        // appexd's sockets for 480 connections, and four processes' shares of 256.
        #expect(during - before < 480 + 4 * 256 + 64, "appexd held \(during) descriptors during the flood, \(before) before")
        print("descriptor flood: appexd held \(before) descriptors before, \(during) during; \(refused) connections refused for their share, \(silent) as silent")
    }
}
