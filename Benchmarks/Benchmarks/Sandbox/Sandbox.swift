import AppexBenchmarkSupport
import AppexSandbox
import AppexSystem
import AppexTesting
import Benchmark
import Foundation

// The cost the sandbox adds to a launch: the same program (BenchTrivial, static Swift and
// Foundation, linking CAppexSystem as extensions do, so its init forks in a pid namespace)
// started by ProcessLaunch as appexd starts an extension (from the launcher thread, dying
// with its parent), once bare and once in an extension's sandbox: user, pid, mount and
// network namespaces with appex-init, a hidden runtime folder, Landlock, seccomp and
// rlimits; and once more with the network entitlement (no network namespace). Measured from spawn to
// the child's exit, with the time to its top-level code as a further metric. The cgroup
// moves are left out: appexd makes them in the background, after the launch.

nonisolated(unsafe) var trivial = ""
nonisolated(unsafe) var scratch: TemporaryDirectory?
nonisolated(unsafe) var sandboxed: ProcessRestrictions?

/// The restrictions of an extension's sandbox with its container in `scratch`; with the
/// network entitlement (`mayConnect`) it gets no network namespace of its own.
func extensionRestrictions(mayConnect: Bool) throws -> ProcessRestrictions {
    let folder = try TemporaryDirectory(prefix: "appex-bench-sandbox")
    let container = folder.url.appendingPathComponent("container")
    let runtime = folder.url.appendingPathComponent("run") // as appexd's runtime folder, hidden
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
    let profile = SandboxProfile(
        executable: SandboxProfile.systemExecutable + [URL(fileURLWithPath: trivial).deletingLastPathComponent().path],
        readOnly: SandboxProfile.systemReadOnly + ["/sys/devices/system/cpu"],
        readWrite: SandboxProfile.systemReadWrite + [container.path],
        mayConnect: mayConnect,
        processes: 256,
        hidden: [runtime.path])
    scratch = consume folder
    return try Sandbox().restrictions(for: profile)
}

func launch(_ benchmark: Benchmark, restrictions: ProcessRestrictions?) throws {
    let output = try FileDescriptor.pipe()
    let start = ProcessProbe.now()
    let child = try ProcessLaunch(executable: trivial, arguments: ["stamp"], descriptors: [(output.write, 1)],
                                  diesWithParent: true, restrictions: restrictions).spawn()
    output.write.close()
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = read(output.read.rawValue, &bytes, bytes.count)
    let line = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
    guard child.waitForExit(timeoutMilliseconds: 10_000) else { throw BenchmarkFailure("the program did not end within 10 s") }
    let status = child.reap()
    benchmark.stopMeasurement()
    let stamp = UInt64(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    guard status == .exited(0), stamp > start else { throw BenchmarkFailure("the program ended \(String(describing: status)), stamp \(stamp)") }
    benchmark.measurement(.toMain, Int(stamp - start) / 1000)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .toMain], timeUnits: .microseconds, units: [.toMain: .count],
        warmupIterations: 3, maxDuration: .seconds(15), maxIterations: 300
    )

    Benchmark("Launch baseline: ProcessLaunch + wait, no sandbox") { benchmark in
        try launch(benchmark, restrictions: nil)
    } setup: {
        ChildProcess.dropPreload()
        trivial = try BuiltProducts.executable("BenchTrivial").path
    }

    Benchmark("Launch in an extension's sandbox: namespaces, appex-init, Landlock, seccomp, rlimits") { benchmark in
        try launch(benchmark, restrictions: sandboxed)
    } setup: {
        ChildProcess.dropPreload()
        trivial = try BuiltProducts.executable("BenchTrivial").path
        sandboxed = try extensionRestrictions(mayConnect: false)
    } teardown: {
        sandboxed = nil
        scratch = nil
    }

    Benchmark("Launch in the sandbox of an extension with the network entitlement: no network namespace") { benchmark in
        try launch(benchmark, restrictions: sandboxed)
    } setup: {
        ChildProcess.dropPreload()
        trivial = try BuiltProducts.executable("BenchTrivial").path
        sandboxed = try extensionRestrictions(mayConnect: true)
    } teardown: {
        sandboxed = nil
        scratch = nil
    }
}
