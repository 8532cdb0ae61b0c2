import AppexCore
import AppexHost
import AppexIPC
import AppexItems
import AppexTesting
import AppexWire
import Foundation
import Testing

/// appexd's log lives in the runtime folder, often a small tmpfs the rest of the user's session
/// shares. Nothing an extension writes fills it, and a log that can't be written costs appexd
/// nothing but the lines.
@Suite(.serialized, .timeLimit(.minutes(2))) final class DaemonLogTests {
    let world: FaultWorld

    init() throws {
        world = try FaultWorld()
    }

    /// `ExtensionOutput.byteLimit`, appexd's.
    static let keptPerProcess = 1024 * 1024

    @Test func theLogKeepsTheFirstMegabyteOfAProcesssOutputAndSaysHowMuchItDropped() async throws {
        try await world.startDaemon()
        try await world.install("attempts")
        let attempts = try await world.extension("attempts")
        // 3 MB in one write, which a pipe appexd stopped reading would block for ever.
        let outcome = try await attempts.outcome([textItem("say -3000000\nsay after the flood")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed\nallowed", "\(outcome)")

        // appexd copies on a thread of its own, and says what it dropped once the process ends.
        let label = FaultWorld.identifier("attempts") + "["
        func said(_ words: String) -> Substring? {
            world.daemonLog.split(separator: "\n").first { $0.hasPrefix("appexd: " + label) && $0.contains(words) }
        }
        #expect(await eventually(seconds: 30) { said("bytes of it were dropped") != nil }, "\(world.daemonLog.suffix(500))")
        let lines = world.daemonLog.split(separator: "\n")
        let kept = lines.filter { $0.hasPrefix(label) }.map { line in line.range(of: "]: ").map { line[$0.upperBound...] } ?? line }
        let keptBytes = kept.reduce(0) { $0 + $1.utf8.count + 1 }
        #expect(keptBytes <= Self.keptPerProcess, "the log kept \(keptBytes) bytes of the extension's output")
        #expect(keptBytes > Self.keptPerProcess - 16 * 1024 - 1, "it kept all it could: \(keptBytes) bytes")
        #expect(!kept.contains { $0.contains("after the flood") }, "what came past the limit is dropped")
        #expect(said("wrote more than the \(Self.keptPerProcess) bytes of output the log keeps of one process; the rest is read and dropped") != nil)

        let count = said("bytes of it were dropped").flatMap { $0.split(separator: ";").last?.split(separator: " ").first }.flatMap { Int($0) }
        let written = 3_000_000 + "after the flood\n".utf8.count
        #expect((count ?? 0) >= written - (keptBytes - kept.count), "dropped: \(count.map(String.init) ?? "not said")")
    }

    /// Foundation's `FileHandle.standardError.write` traps on a failed write, so appexd used
    /// to end at its first line once the runtime folder was full. `/dev/full` fails every
    /// write with ENOSPC.
    @Test func appexdWhoseLogCantBeWrittenGoesOnServing() async throws {
        try await world.startDaemon(log: "/dev/full")
        let daemon = world.daemons()
        try await world.install("attempts")

        // A client that sends what appexd never takes from one is closed, with a line to the log.
        let intruder = try await RawClient.connect(home: world.test.home, version: 2)
        defer { intruder.close() }
        try intruder.daemon.send(.sessionIdle(SessionReference(1)))
        #expect(await eventually(seconds: 30) { intruder.daemonClosure != nil }, "appexd closed the intruder's connection")

        // An extension's output goes to the same log.
        let attempts = try await world.extension("attempts")
        let outcome = try await attempts.outcome([textItem("say hello")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed", "\(outcome)")
        #expect(world.daemons() == daemon && daemon.count == 1, "one appexd served throughout: \(daemon), then \(world.daemons())")
    }

    /// The size of the file at `url`, or nil if there is none.
    func size(_ url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int
    }

    /// appexd runs for days: past its limit (256 KiB here, 8 MiB by default) the log moves to
    /// appexd.log.1 and goes on in a new file, so the two stay bounded however much is written.
    @Test func pastItsLimitTheLogMovesToAppexdLog1AndGoesOnInANewFile() async throws {
        let limit = 256 * 1024
        try await world.startDaemon(["APPEX_LOG_LIMIT_KB": String(limit / 1024)])
        try await world.install("attempts")
        let attempts = try await world.extension("attempts")
        let outcome = try await attempts.outcome([textItem("say -3000000")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed", "\(outcome)")
        let log = world.test.home.daemonLogURL
        let previous = URL(fileURLWithPath: log.path + ".1")
        // A line may be the one that moves the log, and so end the file it went to.
        func bothFiles() -> String { ((try? String(contentsOf: previous, encoding: .utf8)) ?? "") + world.daemonLog }
        #expect(await eventually(seconds: 30) { bothFiles().contains("bytes of it were dropped") }, "\(world.daemonLog.suffix(500))")

        // The size is checked every 64 KiB written, and a line may be 16 KiB.
        let most = limit + 64 * 1024 + 17 * 1024
        #expect(size(log).map { $0 <= most } == true, "appexd.log holds \(size(log) ?? -1) bytes")
        #expect(size(previous).map { $0 >= limit && $0 <= most } == true, "appexd.log.1 holds \(size(previous) ?? -1) bytes")
        let before = (try? String(contentsOf: previous, encoding: .utf8)) ?? ""
        #expect(before.hasSuffix("appexd: the log goes on in \(log.path)\n"), "\(before.suffix(200))")
        #expect(world.daemonLog.hasPrefix("appexd: the log before this line is in \(previous.path)\n"), "\(world.daemonLog.prefix(200))")

        let again = try await attempts.outcome([textItem("say hello")])
        #expect(again.items?.first?.attributedContentText?.string == "allowed", "\(again)")
        #expect(await eventually(seconds: 30) { bothFiles().contains("]: hello\n") }, "the log takes what comes next")
    }

    /// A log appexd was given elsewhere than appexd.log, such as a file of the user's choosing,
    /// is the user's to manage: it is never moved.
    @Test func aLogGivenElsewhereIsNeverMoved() async throws {
        try FileManager.default.createDirectory(at: world.test.scratch, withIntermediateDirectories: true)
        let elsewhere = world.test.scratch.appendingPathComponent("my-appexd.log")
        try await world.startDaemon(["APPEX_LOG_LIMIT_KB": "16"], log: elsewhere.path)
        try await world.install("attempts")
        let attempts = try await world.extension("attempts")
        let outcome = try await attempts.outcome([textItem("say -300000")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed", "\(outcome)")
        #expect(await eventually(seconds: 30) { self.size(elsewhere).map { $0 > 300_000 } == true }, "\(size(elsewhere) ?? -1) bytes")
        #expect(size(URL(fileURLWithPath: elsewhere.path + ".1")) == nil)
        #expect(size(URL(fileURLWithPath: world.test.home.daemonLogURL.path + ".1")) == nil)
    }
}
