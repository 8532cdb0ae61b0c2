import AppexCore
import AppexLocking
import AppexRegistry
import AppexSamples
import AppexSystem
import AppexTestServer
import AppexTesting
import Crypto
import Foundation
import Testing

/// Background sessions under the real appexd, from an installed app's real process (the
/// groups helper): an upload that outlives the process that made it, its events waiting for
/// the app, one process per session, and a group the app is not entitled to.
@Suite(.timeLimit(.minutes(3))) final class TransferSessionTests {
    let world: FaultWorld
    let server: LoopbackHTTPServer
    /// The authority appexd's transfers trust, through SSL_CERT_FILE, as well as none of the system's.
    let authority: TestCertificateAuthority
    static let group = "group.com.example.faults"
    static let session = "com.example.faults.uploads"

    init() async throws {
        world = try FaultWorld()
        server = try await LoopbackHTTPServer.start()
        authority = try TestCertificateAuthority()
        try FileManager.default.createDirectory(at: world.test.scratch, withIntermediateDirectories: true)
        let trusted = world.test.scratch.appendingPathComponent("authority.pem")
        try authority.writeCertificate(to: trusted)
        // The groups helper, launched by appexd for a session's events, logs them here.
        try await world.startDaemon(BackgroundTransferTests.daemonSettings.merging(
            ["HELPER_WAKE_LOG": world.test.scratch.appendingPathComponent("wake.log").path, "HELPER_GROUP": Self.group,
             "SSL_CERT_FILE": trusted.path]) { $1 })
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    @Test func anUploadOutlivesItsProcessAndTheAppIsWokenWithItsEvents() async throws {
        let app = try installApp()
        let file = try makeFile(bytes: 4_000_000)
        // The server reads no byte until the process is gone, however slow the machine, so the
        // upload can't end before; the process may hear progress (the bytes the kernel took).
        server.script("/upload/video", [.hold(after: 0)])
        let made = try await run(app, ["transfer-upload", Self.session, Self.group, server.url("/upload/video").absoluteString, file.path])
        #expect(made.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("progress ") } == ["created 1"], "\(made.standardError)")

        // The process is gone; the upload goes on.
        server.release("/upload/video")
        let registry = try Registry(home: world.test.home)
        let ended = await eventually(seconds: 30) { (try? registry.transfers(session: Self.session))?.first?.state.isFinal == true }
        try #require(ended, "\(String(describing: try? registry.transfers(session: Self.session))); \(world.transfersLog)")
        let upload = try #require(server.uploads(at: "/upload/video").last)
        let hash = try sha256(of: file)
        #expect(upload.bytes == 4_000_000 && upload.sha256 == hash, "the server holds every byte")

        // appexd launches the app, which makes the session again, hears the events that
        // waited, and calls its completion handler, which ends it.
        let log = world.test.scratch.appendingPathComponent("wake.log")
        let woken = await eventually(seconds: 30) { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("finished events") }
        try #require(woken, "\(world.daemonLog)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("progress ") }
        #expect(lines == ["woken for \(Self.session)", "event completed 1 completed 201", "finished events"])
        let acknowledged = await eventually {
            (try? registry.transferEvents(appIdentifier: "com.example.grouped", session: Self.session).isEmpty) == true
        }
        #expect(acknowledged, "acknowledged, they go: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let spool = try FileManager.default.contentsOfDirectory(atPath: world.test.home.transfersSpoolDirectory.path)
        #expect(spool.isEmpty, "the ended upload's file went with its events: \(spool)")
        #expect(FileManager.default.fileExists(atPath: file.path), "the app's own file stays")

        // The woken app has ended, so the session is free, and nothing is delivered twice.
        let free = await eventually { (try? self.output(of: app, ["transfer-attach", Self.session, Self.group])) == "attached\n" }
        #expect(free)
        try await Task.sleep(for: .milliseconds(600))
        #expect(try String(contentsOf: log, encoding: .utf8).components(separatedBy: "woken for").count == 2, "woken once")
    }

    /// `sessionSendsLaunchEvents = false`: the app is not launched for the session's events,
    /// which wait until a process of the app makes the session. Before, appexd launched it.
    @Test func aSessionThatSendsNoLaunchEventsHasItsEventsWaitUnlaunched() async throws {
        let app = try installApp()
        let file = try makeFile(bytes: 200_000)
        server.script("/upload/quiet", [.hold(after: 0)])
        let environment = world.test.environment.merging(["HELPER_NO_LAUNCH_EVENTS": "1"]) { $1 }
        let made = try await CommandRunner(executable: app, environment: environment)
            .run(["transfer-upload", Self.session, Self.group, server.url("/upload/quiet").absoluteString, file.path])
        #expect(made.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("progress ") } == ["created 1"], "\(made.standardError)")
        server.release("/upload/quiet")
        let registry = try Registry(home: world.test.home)
        let evented = await eventually(seconds: 30) {
            (try? registry.transferEvents(appIdentifier: "com.example.grouped", session: Self.session).isEmpty) == false
        }
        try #require(evented, "\(world.transfersLog)")
        #expect(try registry.transfers(session: Self.session).first?.sendsLaunchEvents == false)
        // appexd looks for apps to wake when an event comes; give it time to, wrongly.
        try await Task.sleep(for: .seconds(2))
        let log = world.test.scratch.appendingPathComponent("wake.log")
        #expect(!FileManager.default.fileExists(atPath: log.path), "launched: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let events = try await run(app, ["transfer-events", Self.session, Self.group])
        #expect(events.standardOutput.contains("event completed 1 completed 201"), "the events waited: \(events.standardOutput) \(events.standardError)")
    }

    @Test func theAttachedProcessHearsItsTaskComplete() async throws {
        let app = try installApp()
        let file = try makeFile(bytes: 100_000)
        let made = try await run(app, ["transfer-upload", Self.session, Self.group, server.url("/upload/note").absoluteString, file.path, "wait"])
        #expect(events(in: made) == ["created 1", "event completed 1 completed 201"], "\(made.standardError)")
        #expect(progress(in: made).last == "progress 1 sent 100000, 100000 of 100000", "\(made.standardOutput)")
    }

    @Test func anUploadOverHTTPSIsTrustedThroughTheAuthorityInSSLCertFile() async throws {
        let secure = try await LoopbackHTTPServer.start(tls: authority)
        let app = try installApp()
        let file = try makeFile(bytes: 2_000_000)
        let made = try await run(app, ["transfer-upload", Self.session, Self.group, secure.url("/upload/note").absoluteString, file.path, "wait"])
        await secure.stop()
        #expect(events(in: made) == ["created 1", "event completed 1 completed 201"], "\(made.standardError)")
        let upload = try #require(secure.uploads(at: "/upload/note").last)
        let hash = try sha256(of: file)
        #expect(upload.bytes == 2_000_000 && upload.sha256 == hash, "the server holds every byte")

        // A server another authority vouches for is refused at once, with Apple's code.
        let stranger = try await LoopbackHTTPServer.start(tls: TestCertificateAuthority())
        let refused = try await run(app, ["transfer-upload", Self.session, Self.group, stranger.url("/upload/note").absoluteString, file.path, "wait"])
        await stranger.stop()
        #expect(events(in: refused) == ["created 2", "event completed 2 failed -1203 0"], "\(refused.standardError)")
        #expect(stranger.seen.isEmpty)
    }

    @Test func aDroppedUploadAndABusyAnswerAreRetriedUntilTheServerHoldsEveryByte() async throws {
        let app = try installApp()
        let file = try makeFile(bytes: 1_000_000)
        server.script("/upload/retried", [.drop(after: 300_000), .answer(503)])
        let made = try await run(app, ["transfer-upload", Self.session, Self.group, server.url("/upload/retried").absoluteString, file.path, "wait"])
        #expect(events(in: made) == ["created 1", "event completed 1 completed 201"], "\(made.standardError)")
        #expect(server.seen("/upload/retried").map(\.behaviour) == [.drop(after: 300_000), .answer(503), .serve])
        let hash = try sha256(of: file)
        #expect(server.uploads(at: "/upload/retried").last == .init(bytes: 1_000_000, sha256: hash, idempotencyKey: server.uploads(at: "/upload/retried").first?.idempotencyKey))
        let task = try #require(try Registry(home: world.test.home).transfers(session: Self.session).first)
        #expect(task.attempts == 3, "\(task)")
    }

    @Test func aServerThatIsGoneFailsTheTaskWithApplesCodeAfterItsAttempts() async throws {
        let app = try installApp()
        let gone = try RefusingPort()
        defer { gone.close() }
        let made = try await run(app, ["transfer-download", Self.session, Self.group, gone.url("/bytes/10").absoluteString, "wait"])
        #expect(events(in: made) == ["created 1", "event completed 1 failed -1004 0"], "\(made.standardError)")
        let task = try #require(try Registry(home: world.test.home).transfers(session: Self.session).first)
        #expect(task.attempts == 5 && task.error == "gave up after 5 attempts: 127.0.0.1:\(gone.port) refused the connection", "\(task)")
    }

    @Test func aSecondProcessAttachingToTheSessionIsRefusedUntilTheFirstGoes() async throws {
        let app = try installApp()
        let first = Process()
        first.executableURL = app
        first.arguments = ["transfer-attach", Self.session, Self.group]
        first.environment = world.test.environment
        let input = Pipe()
        let output = Pipe()
        first.standardInput = input
        first.standardOutput = output
        try first.run()
        let said = output.fileHandleForReading.availableData
        #expect(String(decoding: said, as: UTF8.self) == "attached\n")

        let second = try await run(app, ["transfer-attach", Self.session, Self.group])
        #expect(second.status == 1)
        #expect(second.standardOutput.hasPrefix("refused NSURLErrorDomain -996: background session \(Self.session) of com.example.grouped is in use by "))
        #expect(second.standardOutput.contains("(pid \(first.processIdentifier))"), "\(second.standardOutput)")

        try input.fileHandleForWriting.close()
        first.waitUntilExit()
        let third = await eventually { (try? self.output(of: app, ["transfer-attach", Self.session, Self.group])) == "attached\n" }
        #expect(third, "once the first process is gone, another may attach")
    }

    /// As Apple's raises for them: the task completes with why, and nothing is sent. (Run by
    /// an installed app: a background session in the test's own process would start appexd in
    /// the user's own home.)
    @Test func aBackgroundSessionTakesNoDataTaskAndNoCompletionHandler() async throws {
        let app = try installApp()
        let run = try await run(app, ["transfer-data", Self.session, Self.group, server.url("/bytes/10").absoluteString])
        #expect(run.standardOutput.contains("takes no data task and no completion handler"), "\(run.standardOutput)\(run.standardError)")
        #expect(server.seen("/bytes/10").isEmpty, "nothing was sent")
    }

    @Test func aSessionNamingAGroupTheAppIsNotEntitledToIsRefused() async throws {
        let app = try installApp()
        let run = try await run(app, ["transfer-attach", Self.session, "group.com.example.other"])
        #expect(run.status == 1)
        #expect(run.standardOutput.hasPrefix("refused AppexRuntimeErrorDomain 12: session \(Self.session)'s sharedContainerIdentifier can't be used: "))
        #expect(run.standardOutput.contains("com.example.grouped is not entitled to group.com.example.other"), "\(run.standardOutput)")
    }

    /// Another app entitled to the same group (the user shared it with the app at install)
    /// that makes a session of the same name makes a session of its own: it
    /// does not see the first app's tasks, its cancel and acknowledgements reach only its
    /// own, and the first app's events wait for the first app.
    @Test func anotherAppsSessionOfTheSameNameIsItsOwn() async throws {
        let app = try installApp()
        let other = try installApp("com.example.intruder", sharingTheGroup: true)
        // The server reads none of the upload until released, so it can't end before.
        server.script("/upload/held", [.hold(after: 0)])
        let made = try await run(app, ["transfer-upload", Self.session, Self.group, server.url("/upload/held").absoluteString,
                                       try makeFile(bytes: 100_000).path])
        #expect(events(in: made) == ["created 1"], "\(made.standardError)")
        #expect(try output(of: app, ["transfer-tasks", Self.session, Self.group]) == "tasks upload 1 /upload/held\n")

        #expect(try output(of: other, ["transfer-tasks", Self.session, Self.group]) == "tasks\n", "none of the first app's")
        // Its own download, stalled so that it can't end before it is cancelled.
        server.script("/bytes/20", [.stall(after: 0)])
        let cancelled = try await run(other, ["transfer-download", Self.session, Self.group, server.url("/bytes/20").absoluteString, "cancel"])
        #expect(events(in: cancelled) == ["created 1", "event completed 1 cancelled 0"], "\(cancelled.standardError)")

        server.release("/upload/held")
        let log = world.test.scratch.appendingPathComponent("wake.log")
        let woken = await eventually(seconds: 30) { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("finished events") }
        try #require(woken, "\(world.daemonLog)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("progress ") }
        #expect(lines == ["woken for \(Self.session)", "event completed 1 completed 201", "finished events"], "the first app hears its own")
        // Its task 1 was not the one cancelled.
        let registry = try Registry(home: world.test.home)
        #expect(try registry.transfers(appIdentifier: "com.example.grouped").map(\.state) == [.completed], "\(String(describing: try? registry.transfers()))")
        #expect(try registry.transfers(appIdentifier: "com.example.intruder").map(\.state) == [.cancelled])
    }

    @Test func appexdRestsOnceTheLastProcessDetaches() async throws {
        let app = try installApp()
        for _ in 0..<3 {
            let attached = try await run(app, ["transfer-attach", Self.session, Self.group])
            #expect(attached.standardOutput == "attached\n", "\(attached.standardError)")
        }
        // A wait loop that woke itself would keep a core busy; resting, appexd uses almost none.
        let daemon = try #require(world.daemons().first)
        let before = try cpuTicks(of: daemon)
        try await Task.sleep(for: .seconds(2))
        let used = try cpuTicks(of: daemon) - before
        #expect(used < 50, "appexd used \(used) of 200 clock ticks with nothing to do")
    }

    // MARK: Helpers

    /// Installs the app `identifier`, whose executable is the groups helper, entitled to the
    /// group, which the user shares with it if another app holds it; returns its installed
    /// executable.
    func installApp(_ identifier: String = "com.example.grouped", sharingTheGroup: Bool = false) throws -> URL {
        var app = BundleBuilder.app(identifier, name: "Grouped", in: world.test.scratch.appendingPathComponent(identifier))
        app.executable = AppexBuild.products.appendingPathComponent("AppexGroupsHelper")
        app.entitlements = [Entitlements.Key.applicationGroups: .array([.string(Self.group)])]
        let options = Registry.InstallOptions(sharedGroups: sharingTheGroup ? [Self.group] : [])
        return try Registry(home: world.test.home).install(appAt: try app.write(), options: options).executableURL
    }

    func run(_ executable: URL, _ arguments: [String], adding environment: [String: String] = [:]) async throws -> CommandRunner.Result {
        try await CommandRunner(executable: executable, environment: world.test.environment.merging(environment) { $1 }).run(arguments)
    }

    /// `run`, again while appexd still says the session is in use by the process before,
    /// which has exited (see ``outputOnceFree(of:_:)``).
    func runOnceFree(_ executable: URL, _ arguments: [String], adding environment: [String: String] = [:]) async throws -> CommandRunner.Result {
        var result = try await run(executable, arguments, adding: environment)
        for _ in 0..<100 where result.standardOutput.contains("one process at a time may be attached") {
            try await Task.sleep(for: .milliseconds(100))
            result = try await run(executable, arguments, adding: environment)
        }
        return result
    }

    /// What `executable` prints with `arguments`, waited for here: for `eventually`.
    func output(of executable: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = world.test.environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// What `executable` prints with `arguments`, run again while appexd still says the
    /// session is in use: the process before it has exited, but appexd may not have read its
    /// connection's end yet (slowly, under ThreadSanitizer).
    func outputOnceFree(of executable: URL, _ arguments: [String]) throws -> String {
        var answer = try output(of: executable, arguments)
        for _ in 0..<100 where answer.contains("one process at a time may be attached") {
            Thread.sleep(forTimeInterval: 0.1)
            answer = try output(of: executable, arguments)
        }
        return answer
    }

    /// What the helper printed, its progress reports left out.
    func events(in run: CommandRunner.Result) -> [String] {
        run.standardOutput.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("progress ") }
    }

    /// The helper's progress reports.
    func progress(in run: CommandRunner.Result) -> [String] {
        run.standardOutput.split(separator: "\n").map(String.init).filter { $0.hasPrefix("progress ") }
    }

    /// The clock ticks (1/100 s) of processor time `pid` has used, from /proc.
    func cpuTicks(of pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return try #require(Int(fields[11])) + (try #require(Int(fields[12])))
    }

    func makeFile(bytes count: Int) throws -> URL {
        try FileManager.default.createDirectory(at: world.test.scratch, withIntermediateDirectories: true)
        let url = world.test.scratch.appendingPathComponent("upload-\(count)")
        try Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }).write(to: url)
        return url
    }

    func sha256(of file: URL) throws -> String {
        SHA256.hash(data: try Data(contentsOf: file)).map { String(format: "%02x", $0) }.joined()
    }
}

/// What a background session's process asks for that can't be done, and downloads and cancels.
extension TransferSessionTests {
    @Test func aDownloadLandsInTheGroupsContainerAndGoesOnceAcknowledged() async throws {
        let app = try installApp()
        let run = try await run(app, ["transfer-download", Self.session, Self.group, server.url("/bytes/300000").absoluteString, "wait"])
        let folder = world.test.home.groupContainer(for: Self.group).appendingPathComponent("Library/Caches/Transfers").path
        let lines = events(in: run)
        try #require(lines.count == 3, "\(run.standardOutput) \(run.standardError)")
        #expect(lines[0] == "created 1")
        #expect(lines[1].hasPrefix("event finishedDownloading 1 status 200 at \(folder)/") && lines[1].hasSuffix(" holding 300000 bytes"), "\(lines[1])")
        #expect(lines[2] == "event completed 1 completed 200")
        let removed = await eventually { (try? FileManager.default.contentsOfDirectory(atPath: folder).isEmpty) == true }
        #expect(removed, "the file handed over goes once acknowledged")
    }

    @Test func theAttachedProcessHearsAnUploadsProgressAsItGoes() async throws {
        let app = try installApp()
        let size = 24_000_000
        let file = try makeFile(bytes: size)
        // The server stops reading after 1 MB, so the upload stands part-way (what the
        // socket's buffers take is sent) until the process has heard of it.
        server.script("/upload/progress", [.hold(after: 1_000_000)])
        let process = Process()
        process.executableURL = app
        process.arguments = ["transfer-upload", Self.session, Self.group, server.url("/upload/progress").absoluteString, file.path, "wait"]
        process.environment = world.test.environment
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        let heard = LiveOutput(pipe.fileHandleForReading)
        try process.run()
        // Generous: on a loaded machine the transfers' process can take a while to start.
        let midway = await eventually(seconds: 90) { heard.text.contains("progress 1 sent") }
        server.release("/upload/progress")
        let output = await heard.all()
        process.waitUntilExit()
        #expect(midway, "heard while held: \(output)")
        let lines = output.split(separator: "\n").map(String.init)
        let reports = lines.filter { $0.hasPrefix("progress ") }.map { line in
            line.split(separator: " ").compactMap { Int64($0.trimmingCharacters(in: .punctuationCharacters)) }
        }
        let totals = reports.map { $0.count == 4 ? $0[2] : -1 }
        // It came while the server held the upload (`midway`), but how much it says depends on
        // how much the buffers between took, the kernel's and the server's: in one CI run, all
        // 24 MB. "Sent" is what the connection took, not what the server has read.
        #expect(totals.first.map { $0 > 0 } == true, "\(output)")
        #expect(totals == totals.sorted() && totals.last == Int64(size), "\(output)")
        #expect(reports.allSatisfy { $0.count == 4 && $0[1] > 0 && $0[3] == Int64(size) }, "each says how many more bytes, of all: \(output)")
        #expect(reports.map { $0[1] }.reduce(0, +) == Int64(size), "the increments add up to the whole")
        #expect(lines.last == "event completed 1 completed 201", "\(output)")
    }

    @Test func anAppLaunchedForEventsAnotherProcessTookIsNotLeftWaiting() async throws {
        let app = try installApp()
        // As appexd launches it, for a session whose events are gone by the time it attaches.
        let log = world.test.scratch.appendingPathComponent("wake.log")
        let environment = world.test.environment.merging(
            ["APPEX_BACKGROUND_URL_SESSION": Self.session, "HELPER_WAKE_LOG": log.path, "HELPER_GROUP": Self.group]) { $1 }
        let woken = try await CommandRunner(executable: app, environment: environment).run([])
        #expect(woken.status == 0, "the completion handler ended it")
        #expect(try String(contentsOf: log, encoding: .utf8) == "woken for \(Self.session)\nfinished events\n")
    }

    @Test func aSessionWithoutASharedContainerIsInvalidFromTheStart() async throws {
        let app = try installApp()
        let run = try await run(app, ["transfer-attach", Self.session, ""])
        #expect(run.status == 1)
        #expect(run.standardOutput.hasPrefix("refused NSURLErrorDomain -995: background session \(Self.session) has no sharedContainerIdentifier"),
                "\(run.standardOutput)")
    }

    @Test func aCancelledTaskEndsOnceAsCancelled() async throws {
        let app = try installApp()
        server.script("/bytes/3000000", [.stall(after: 0)])
        let run = try await run(app, ["transfer-download", Self.session, Self.group, server.url("/bytes/3000000").absoluteString, "cancel"])
        #expect(events(in: run) == ["created 1", "event completed 1 cancelled 0"], "\(run.standardError)")
    }

    @Test func aTaskThatCanNotBeMadeIsRefusedWithTheReason() async throws {
        let app = try installApp()
        let notHTTP = try await run(app, ["transfer-download", Self.session, Self.group, "file:///etc/passwd"])
        #expect(notHTTP.status == 1)
        #expect(notHTTP.standardOutput == "refused AppexRuntimeErrorDomain 12: \"file:///etc/passwd\" is not an http or https URL with a host\n")
        let folder = try await run(app, ["transfer-upload", Self.session, Self.group, server.url("/upload").absoluteString, world.test.scratch.path])
        #expect(folder.standardOutput == "refused AppexRuntimeErrorDomain 12: an upload's file must be a regular file open for reading\n")
        #expect(try Registry(home: world.test.home).transfers(session: Self.session).isEmpty, "nothing was made")
    }

    /// A task carries its file as the one descriptor of its frame, with no slot to name:
    /// an upload without one, a download with one, and a task with several are refused,
    /// what came is closed, and nothing is made.
    @Test func aTaskCarryingTheWrongNumberOfFilesIsRefusedAndTheyAreClosed() async throws {
        let app = try installApp()
        let daemon = try #require(world.daemons().first)
        let url = server.url("/upload").absoluteString
        #expect(try output(of: app, ["transfer-raw-create", Self.session, Self.group, "upload", url, "1"]) == "created 1\n")
        let answers = try ["upload 0", "download 1", "upload 3", "download 2"].map { attempt in
            let parts = attempt.split(separator: " ").map(String.init)
            return try outputOnceFree(of: app, ["transfer-raw-create", Self.session, Self.group, parts[0], url, parts[1]])
        }
        #expect(answers == [
            "refused AppexRuntimeErrorDomain 12: an upload task carries its file; this one came with none\n",
            "refused AppexRuntimeErrorDomain 12: a download task carries no file\n",
            "refused AppexRuntimeErrorDomain 12: a task carries at most one file, an upload's; this one came with 3\n",
            "refused AppexRuntimeErrorDomain 12: a task carries at most one file, an upload's; this one came with 2\n",
        ], "\(answers)")
        #expect(try Registry(home: world.test.home).transfers(session: Self.session).count == 1, "only the first, well-formed upload")
        // Each file sent was the app's executable (the upload made is spooled as a hard link, not held open).
        let closed = await eventually { !ResourceCounts.openDescriptorTargets(of: daemon).contains { $0.hasSuffix("/\(app.lastPathComponent)") } }
        #expect(closed, "appexd keeps none of the files it refused: \(ResourceCounts.openDescriptorTargets(of: daemon))")
    }

    /// Fields as `HELPER_HEADER` takes them: a CR, LF or NUL in a value would end the field
    /// early and smuggle in another field, or another request; in a name, so would they, and
    /// a space or colon. Another control character in a value (escape, DEL) is refused too:
    /// the HTTP client would refuse it at every attempt.
    @Test(arguments: ["X-Note:a%0D%0AInjected:%201", "X-Note:a%0D%0A%0D%0AGET%20/admin%20HTTP/1.1", "X-Note:a%0Ab", "X-Note:a%00b",
                      "X-Note:a%0Db", "X-Note:a%1B%5B2Jb", "X-Note:a%7Fb", "X-Note:a%01b",
                      "X-No%0D%0Ate:v", "X%20Note:v", "X-Note%00:v", "X-Note%3AInjected:v"])
    func aHeaderFieldThatCouldSmuggleAnotherIsRefusedAndNothingIsSent(field: String) async throws {
        let app = try installApp()
        let name = try #require(field.split(separator: ":")[0].removingPercentEncoding)
        let run = try await CommandRunner(executable: app, environment: world.test.environment.merging(["HELPER_HEADER": field]) { $1 })
            .run(["transfer-download", Self.session, Self.group, server.url("/bytes/10").absoluteString])
        #expect(run.status == 1, "\(run.standardOutput)")
        #expect(run.standardOutput == "refused AppexRuntimeErrorDomain 12: the header field \"\(name)\" is not a valid name and value\n",
                "\(run.standardOutput)")
        #expect(try Registry(home: world.test.home).transfers(session: Self.session).isEmpty, "nothing was made")
        #expect(server.seen("/bytes/10").isEmpty)
    }

    /// A value may hold spaces, tabs and any non-ASCII text (RFC 9110's obs-text).
    @Test(arguments: [("X-Note:a%20note", "a note"), ("X-Note:a%09tab%20and%20caf%C3%A9", "a\ttab and café")])
    func aHeaderFieldOfTheAppsOwnReachesTheServer(field: String, value: String) async throws {
        let app = try installApp()
        let run = try await CommandRunner(executable: app, environment: world.test.environment.merging(["HELPER_HEADER": field]) { $1 })
            .run(["transfer-download", Self.session, Self.group, server.url("/bytes/10").absoluteString, "wait"])
        #expect(events(in: run).last == "event completed 1 completed 200", "\(run.standardOutput) \(run.standardError)")
        #expect(server.seen("/bytes/10").map { $0.headers["x-note"] } == [value])
    }
}

/// What a process writes to a pipe, read as it comes, on a thread of its own (not one of
/// the tasks' few), to its end.
final class LiveOutput: Sendable {
    private final class Received: Sendable {
        let text = Locked("")
        let ended = Locked(false)
    }

    private let received = Received()

    init(_ handle: FileHandle) {
        let received = received
        Thread.detachNewThread {
            while case let data = handle.availableData, !data.isEmpty {
                received.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            received.ended.withLock { $0 = true }
        }
    }

    /// What came so far.
    var text: String { received.text.withLock { $0 } }

    /// All of it, once the writer has closed the pipe.
    func all() async -> String {
        while !received.ended.withLock({ $0 }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return text
    }
}
