import AppexSandbox
import AppexSystem
import Foundation
import Glibc

/// How a program run in the sandbox ended, and what it wrote to standard output and error.
struct SandboxedRun {
    var output: String
    var status: ExitStatus?
}

/// Runs `arguments` (an absolute executable and its arguments) under `profile`, its
/// standard output and error to one pipe and `descriptors` installed, and waits for it to end.
func runSandboxed(_ arguments: [String], profile: SandboxProfile, descriptors: [(FileDescriptor, Int32)] = [],
                  environment: [String: String] = [:], sandbox: Sandbox = Sandbox(isStrict: false),
                  whileRunning: (ProcessDescriptor) -> Void = { _ in }) throws -> SandboxedRun {
    let (read, write) = try UnixSocket.pair()
    let launch = ProcessLaunch(executable: arguments[0], arguments: Array(arguments.dropFirst()),
                               environment: environment.merging(["PATH": "/usr/bin:/bin", "LANG": "C"].merging(Sanitizers.settings) { $1 }) { mine, _ in mine },
                               descriptors: [(write, 1), (write, 2)] + descriptors)
    let child = try sandbox.spawn(launch, profile: profile)
    write.close()
    whileRunning(child)
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { Glibc.read(read.rawValue, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        bytes += buffer.prefix(count)
    }
    read.close()
    child.waitForExit(timeoutMilliseconds: 30_000)
    return SandboxedRun(output: String(decoding: bytes, as: UTF8.self), status: child.reap())
}

/// Runs a /bin/sh script under `profile`.
func runShell(_ script: String, profile: SandboxProfile) throws -> SandboxedRun {
    try runSandboxed(["/bin/sh", "-c", script], profile: profile)
}

/// Runs a Python program under `profile`, launched by `sandbox`.
func runPython(_ program: String, profile: SandboxProfile, sandbox: Sandbox = Sandbox(isStrict: false)) throws -> SandboxedRun {
    try runSandboxed(["/usr/bin/python3", "-I", "-c", program], profile: profile, sandbox: sandbox)
}

/// A profile for a test: the system's paths, and `readWrite` besides.
func testProfile(readWrite: [String] = [], readOnly: [String] = [], mayConnect: Bool = false) -> SandboxProfile {
    SandboxProfile(executable: SandboxProfile.systemExecutable, readOnly: SandboxProfile.systemReadOnly + readOnly,
                   readWrite: SandboxProfile.systemReadWrite + readWrite, mayConnect: mayConnect)
}
