import AppexCore
import AppexHost
import AppexItems
import AppexLocking
import AppexRegistry
import AppexTesting
import Foundation
import Glibc
import Testing

/// Hosts and the daemon come and go: a host cancels or dies mid-request, appexd is killed,
/// and many hosts send many requests at once. None of it hangs a host or leaks a process.
@Suite(.serialized, .timeLimit(.minutes(2))) final class HostAndDaemonTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
    }

    @Test func cancelExtensionRequestRunsTheCancellationBlockOnly() async throws {
        try await world.install("neverAnswers")
        let silent = try await world.extension("neverAnswers")
        let baseline = world.baseline()
        let delivered = Locked<[String]>([])
        let cancelled = AsyncStream<NSError>.makeStream()
        silent.requestCompletionBlock = { _, _ in delivered.withLock { $0.append("completion") } }
        silent.requestInterruptionBlock = { _ in delivered.withLock { $0.append("interruption") } }
        silent.requestCancellationBlock = { _, error in
            delivered.withLock { $0.append("cancellation") }
            cancelled.continuation.yield(error as NSError)
        }
        let request = try await silent.beginExtensionRequest(withInputItems: [textItem("hello")])
        #expect(silent.pid(forRequestIdentifier: request) > 0)
        #expect(await eventually { !self.world.extensionProcesses().isEmpty })
        silent.cancelExtensionRequest(withIdentifier: request)
        let error = try await bounded { await cancelled.stream.first { _ in true } }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == CocoaError.userCancelled.rawValue)
        #expect(silent.pid(forRequestIdentifier: request) == -1)
        await world.expectNothingLeaked(since: baseline)
        #expect(delivered.withLock { $0 } == ["cancellation"])
    }

    @Test func cancellingTheHostsTaskCancelsTheRequest() async throws {
        try await world.install("neverAnswers")
        let silent = try await world.extension("neverAnswers")
        let baseline = world.baseline()
        let task = Task { try await silent.request(withInputItems: [textItem("hello")]) }
        #expect(await eventually { !self.world.extensionProcesses().isEmpty })
        task.cancel()
        let outcome = try await bounded { try await task.value }
        #expect(outcome.cancellationError?.code == CocoaError.userCancelled.rawValue, "\(outcome)")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aTaskCancelledBeforeItsRequestBeganCancelsIt() async throws {
        try await world.install("neverAnswers")
        let silent = try await world.extension("neverAnswers")
        let baseline = world.baseline()
        let task = Task {
            // Cancelled before the request exists: its cancellation handler runs first.
            withUnsafeCurrentTask { $0?.cancel() }
            return try await silent.request(withInputItems: [textItem("hello")])
        }
        let outcome = try await bounded { try await task.value }
        #expect(outcome.cancellationError?.code == CocoaError.userCancelled.rawValue, "\(outcome)")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aHostKilledMidRequestTakesItsExtensionProcessWithIt() async throws {
        try await world.install("neverAnswers")
        let daemons = world.daemons()
        let host = Process()
        host.executableURL = world.appex.executable
        host.arguments = ["run", FaultWorld.identifier("neverAnswers"), "--text", "hello", "--timeout", "0"]
        host.environment = world.appex.environment
        host.standardOutput = FileHandle.nullDevice
        host.standardError = FileHandle.nullDevice
        try host.run()
        defer { if host.isRunning { kill(host.processIdentifier, SIGKILL) } }
        // Bounded generously: under AddressSanitizer, beside the hostile-peer tests' flood, the
        // host and the launch once took longer than 15 s (in CI).
        #expect(await eventually(seconds: 60) { !self.world.extensionProcesses().isEmpty }, "the request reached the extension")
        kill(host.processIdentifier, SIGKILL)
        await host.exited()
        #expect(await eventually(seconds: 60) { self.world.extensionProcesses().isEmpty }, "appexd ended the orphan: \(world.extensionProcesses())")
        #expect(world.daemons() == daemons, "and kept running")
        // Once appexd has reaped it (`appex ps` lists nothing), its log says what happened and
        // never that the extension crashed: that its host went away, when appexd ended it, or
        // nothing, when the extension ended first, as its session closed with the host.
        let reaped = await eventually(seconds: 60) {
            guard let listed = try? await self.world.appex.run(["ps", "--json"]) else { return false }
            return (try? JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [Any])?.isEmpty == true
        }
        #expect(reaped, "appexd still lists the orphan")
        let log = world.daemonLog
        #expect(!log.contains("crashed") && !log.contains("before answering"), "\(log)")
    }

    /// appexd keeps what it looked up while the registry's generation stands: a change made by
    /// another process (the CLI) must reach the very next launch. Each `appex run` is a host of
    /// its own, so each launches (and looks up) anew; this process's host resolves the extension
    /// before the change, so its request reaches appexd, which must refuse it.
    @Test func aDisabledOrUninstalledExtensionIsRefusedAtTheNextLaunch() async throws {
        try await world.install("echo")
        let identifier = FaultWorld.identifier("echo")
        func run() async throws -> (status: Int32, output: String) {
            let result = try await world.appex.run(["run", identifier, "--text", "hello", "--timeout", "20"])
            return (result.status, result.standardOutput + result.standardError)
        }
        func refusal(_ plugIn: NSExtension) async -> String? {
            do {
                let outcome = try await plugIn.outcome([textItem("hello")])
                Issue.record("launched: \(outcome)")
                return nil
            } catch {
                return String(reflecting: error)
            }
        }
        let first = try await run()
        #expect(first.status == 0, "appexd has looked the extension up: \(first.output)")
        let resolved = try await world.extension("echo")
        #expect(try await world.appex.run(["disable", identifier]).status == 0)
        let disabled = await refusal(resolved)
        #expect(disabled?.contains("is disabled") == true, "\(disabled ?? "")")

        #expect(try await world.appex.run(["enable", identifier]).status == 0)
        let enabled = try await run()
        #expect(enabled.status == 0, "\(enabled.output)")
        let again = try await world.extension("echo")
        #expect(try await world.appex.run(["uninstall", FaultWorld.appIdentifier]).status == 0)
        let uninstalled = await refusal(again)
        #expect(uninstalled?.contains("No extension") == true, "\(uninstalled ?? "")")
    }

    @Test func aKilledDaemonInterruptsTheRequestAndTheNextRequestStartsANewOne() async throws {
        try await world.install("neverAnswers", "echo")
        let silent = try await world.extension("neverAnswers")
        let baseline = world.baseline()
        let first = try #require(world.daemons().first)
        let task = Task { try await silent.outcome([textItem("hello")]) }
        #expect(await eventually { !self.world.extensionProcesses().isEmpty })
        kill(first, SIGKILL)
        let outcome = try await task.value
        #expect(outcome.interruption?.reason == .daemonGone, "\(outcome)")
        #expect(await eventually { self.world.extensionProcesses().isEmpty }, "the extension died with its daemon")

        // The next request starts a daemon of its own, and the registry is as it was.
        let echo = try await world.extension("echo")
        let answer = try await echo.outcome([textItem("again")])
        let items = try #require(answer.items, "\(answer)")
        #expect(String(decoding: try await items[0].data(UTType.utf8PlainText.identifier), as: UTF8.self) == "again")
        let second = try #require(world.daemons().first)
        #expect(second != first)
        let list = try await world.appex.run(["list"])
        #expect(list.status == 0 && list.standardOutput.contains(FaultWorld.identifier("echo")), "\(list.standardOutput) \(list.standardError)")
        #expect(try Registry(home: world.test.home).app(FaultWorld.appIdentifier)?.extensions.count == 2)

        // This daemon has the default idle grace; end it, and its extensions with it.
        kill(second, SIGTERM)
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func manyRequestsFromSeveralHostsAtOnce() async throws {
        try await world.install("echo")
        let echo = try await world.extension("echo")
        let baseline = world.baseline()
        let hosts = try (0..<3).map { index in
            let host = Process()
            host.executableURL = world.appex.executable
            host.arguments = ["run", FaultWorld.identifier("echo"), "--text", "from host \(index)", "--json", "--timeout", "30"]
            host.environment = world.appex.environment
            host.standardOutput = Pipe()
            host.standardError = FileHandle.nullDevice
            try host.run()
            return host
        }
        // A host still starting when the test ends would start a daemon of its own.
        defer { for host in hosts where host.isRunning { kill(host.processIdentifier, SIGKILL) } }
        let texts = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let outcome = try await echo.outcome([textItem("request \(index)")])
                    let items = try #require(outcome.items, "\(outcome)")
                    return (index, String(decoding: try await items[0].data(UTType.utf8PlainText.identifier), as: UTF8.self))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(texts == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, "request \($0)") }))
        for (index, host) in hosts.enumerated() {
            let output = try await bounded {
                (host.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
            }
            #expect(await host.exited() == 0)
            #expect(String(decoding: output, as: UTF8.self).contains("from host \(index)"))
        }
        await world.expectNothingLeaked(since: baseline)
    }
}
