import AppexSamples
import AppexSystem
import Foundation
import Glibc
import Testing

/// Background tasks in a real app process (AppexApplicationHelper): SIGTERM waits for them,
/// up to the grace period, and the app then ends as SIGTERM ends it.
@Suite(.timeLimit(.minutes(1))) struct BackgroundTaskTests {
    @Test func sigtermWaitsForTheTaskAndTheAppEndsWhenItEnds() throws {
        let app = try AppProcess(["background-task", "60000"])
        #expect(app.nextLine() == "begun")
        try app.send("remaining")
        #expect(app.nextLine() == "unlimited")
        app.process.send(signal: SIGTERM)
        var answer: String?
        for _ in 0..<250 where answer != "limited" { // the signal arrives in its own time
            try app.send("remaining")
            answer = app.nextLine()
            usleep(20_000)
        }
        #expect(answer == "limited", "SIGTERM came, and the task still runs")
        #expect(!app.process.waitForExit(timeoutMilliseconds: 200))
        try app.send("end")
        #expect(app.process.waitForExit(timeoutMilliseconds: 10_000))
        #expect(app.process.reap() == .signaled(SIGTERM, coreDumped: false))
    }

    @Test func aTaskStillRunningWhenTheGracePeriodEndsIsToldAndTheAppEnds() throws {
        let app = try AppProcess(["background-task", "300"])
        #expect(app.nextLine() == "begun")
        app.process.send(signal: SIGTERM)
        #expect(app.nextLine() == "expired, 0 s left")
        #expect(app.process.waitForExit(timeoutMilliseconds: 10_000))
        #expect(app.process.reap() == .signaled(SIGTERM, coreDumped: false))
    }
}

/// AppexApplicationHelper, with its standard input and output through pipes.
final class AppProcess {
    let process: ProcessDescriptor
    private let input: FileDescriptor
    private let output: FileDescriptor

    init(_ arguments: [String]) throws {
        let stdin = try FileDescriptor.pipe()
        let stdout = try FileDescriptor.pipe()
        // What it says on standard error (why it failed, a sanitizer's report) goes to the test's.
        let errors = FileDescriptor(owning: dup(STDERR_FILENO))
        process = try ProcessLaunch(executable: AppexBuild.products.appendingPathComponent("AppexApplicationHelper").path,
                                    arguments: arguments, environment: Sanitizers.settings, descriptors: [(stdin.read, 0), (stdout.write, 1), (errors, 2)],
                                    diesWithParent: true).spawn()
        stdin.read.close()
        stdout.write.close()
        errors.close()
        input = stdin.write
        output = stdout.read
    }

    func send(_ line: String) throws { try input.write(Array((line + "\n").utf8)) }

    /// The next line it prints, or nil at its end or after 30 s of silence: a test that blocks
    /// a thread of Swift's pool must not block it for ever.
    func nextLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while (try? UnixSocket.waitForInput(output, timeout: .seconds(30))) == true, read(output.rawValue, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    deinit {
        input.close()
        output.close()
        if process.waitForExit(timeoutMilliseconds: 0) == false { process.send(signal: SIGKILL) }
        _ = process.waitForExit(timeoutMilliseconds: 10_000)
        _ = process.reap()
    }
}
