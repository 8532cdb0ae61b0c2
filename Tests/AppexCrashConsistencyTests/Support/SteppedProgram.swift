import AppexSamples
import AppexSystem
import CAppexStepGate
import Foundation
import Glibc

/// A program run under the step gate (the AppexStepGate fixture): each change it makes to the
/// file system (a write to a file, a create, a rename, an unlink, an fsync, …) is a step, and
/// waits before it happens until this process lets it go on. So a test can look at the stores
/// between any two steps, and SIGKILL the program before any one of them.
struct SteppedProgram: Sendable {
    /// How a run ended.
    struct Outcome: Sendable {
        /// The steps the program reached: all it made if it ran to its end, else the one it was killed before.
        var steps: Int
        var wasKilled: Bool
        var status: AppexSystem.ExitStatus?
        var output: String
    }

    /// The program did not reach its next step, or its end, in time.
    struct Hung: Error, CustomStringConvertible {
        var program: String
        var steps: Int
        var description: String { "\(program) made no step and did not exit for 60 s, after \(steps) steps" }
    }

    var executable: URL
    var arguments: [String]
    var environment: [String: String]

    private static let gate = AppexBuild.products.appendingPathComponent("AppexStepGate").path

    /// Runs the program to its end, or SIGKILLs it as it waits before step `killedBefore`
    /// (counted from 1). `atStep` is called with each step's number, the one it is killed
    /// before included, while the program waits.
    func run(killedBefore: Int? = nil, atStep: (Int) throws -> Void = { _ in }) throws -> Outcome {
        let (ours, theirs) = try UnixSocket.pair()
        defer { ours.close() }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("appex-stepped-\(UUID().uuidString)")
        defer { unlink(log.path) }
        let output = try FileDescriptor.open(log.path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o600)
        let process: ProcessDescriptor
        do {
            defer { theirs.close(); output.close() }
            process = try ProcessLaunch(executable: Self.gate, arguments: ["3", executable.path] + arguments, environment: environment,
                                        descriptors: [(theirs, 3), (output, 1), (output, 2)], diesWithParent: true).spawn()
        }
        var steps = 0
        var wasKilled = false
        var reaped = false
        defer {
            // Thrown out of the loop: the program goes, and leaves no zombie.
            if !reaped {
                process.kill()
                _ = process.waitForExit(timeoutMilliseconds: 10_000)
                _ = process.reap()
            }
        }
        let listener = try receiveListener(ours)
        defer { listener.close() }
        var step = appex_step()
        var waited = Duration.zero
        while true {
            let result = appex_step_gate_next(listener.rawValue, 100, &step)
            if result == 0 { break }
            if result < 0 {
                guard errno == EAGAIN else { throw SystemError("seccomp notification", subject: executable.lastPathComponent) }
                if process.hasExited { break } // the listener hangs up only once the process is reaped
                waited += .milliseconds(100)
                if waited > .seconds(60) { throw Hung(program: executable.lastPathComponent, steps: steps) }
                continue
            }
            waited = .zero
            steps += 1
            try atStep(steps)
            if steps == killedBefore {
                process.send(signal: SIGKILL)
                wasKilled = true
                break
            }
            if appex_step_gate_continue(listener.rawValue, step.id) != 0, errno != ENOENT {
                throw SystemError("seccomp notification answer", subject: executable.lastPathComponent)
            }
        }
        _ = process.waitForExit(timeoutMilliseconds: 10_000)
        let status = process.reap()
        reaped = true
        return Outcome(steps: steps, wasKilled: wasKilled, status: status,
                       output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// The gate's listener, which the fixture sends before it executes the program.
    private func receiveListener(_ socket: FileDescriptor) throws -> FileDescriptor {
        var descriptors: [FileDescriptor] = []
        var byte: UInt8 = 0
        let read = try withUnsafeMutableBytes(of: &byte) { try UnixSocket.receive(socket, into: $0, descriptors: &descriptors) }
        guard read == 1, descriptors.count == 1 else {
            descriptors.forEach { $0.close() }
            throw SystemError("receive the step gate's listener", subject: executable.lastPathComponent, errno: EPROTO)
        }
        return descriptors[0]
    }
}
