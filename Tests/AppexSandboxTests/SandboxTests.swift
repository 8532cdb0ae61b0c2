import AppexSandbox
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// The launcher on its own: programs run under a profile can do what it allows and nothing
/// else, each layer checked by an attempt that must fail. On a kernel without a layer, the
/// tests of that layer are skipped, and `aMissingLayerIsReported` says so.
@Suite struct SandboxTests {
    let kernel = Sandbox.KernelSupport.current

    var hasLandlock: Bool { (kernel.landlockABI ?? 0) >= 1 }

    @Test func theProcessRunsWithNoNewPrivilegesAndItsLimits() throws {
        var profile = testProfile()
        profile.processes = 64
        let run = try runShell("""
            while read line; do case $line in NoNewPrivs*) echo "$line";; esac; done < /proc/$$/status
            ulimit -c; ulimit -n; ulimit -p
            """, profile: profile)
        #expect(run.status == .exited(0), "\(run.output)")
        let lines = run.output.split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: " ") }
        // The process limit is set only in a user namespace of its own, where it counts only the sandbox's.
        var limit = rlimit()
        getrlimit(Int32(__RLIMIT_NPROC.rawValue), &limit)
        let processes = Sandbox.KernelSupport.current.isolationProblem == nil ? "64" : limit.rlim_cur == rlim_t.max ? "unlimited" : "\(limit.rlim_cur)"
        #expect(lines == ["NoNewPrivs: 1", "0", "1024", processes], "\(run.output)")
    }

    @Test(.enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
    func filesOutsideTheProfileCantBeRead() throws {
        let scratch = try TemporaryDirectory()
        let outside = scratch.url.appendingPathComponent("outside.txt")
        let allowed = scratch.url.appendingPathComponent("allowed")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try "secret".write(to: outside, atomically: true, encoding: .utf8)
        try "shared".write(to: allowed.appendingPathComponent("in.txt"), atomically: true, encoding: .utf8)
        let run = try runShell("cat \(allowed.path)/in.txt; echo; cat \(outside.path); ls \(NSHomeDirectory())",
                               profile: testProfile(readOnly: [allowed.path]))
        #expect(run.output.hasPrefix("shared\n"), "\(run.output)")
        #expect(!run.output.contains("secret"), "\(run.output)")
        #expect(run.output.contains("\(outside.path): Permission denied"), "\(run.output)")
        #expect(run.output.contains("Permission denied"), "the home folder is closed too: \(run.output)")
    }

    @Test(.enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
    func writesGoOnlyWhereTheProfileAllowsAndNothingThereRuns() throws {
        let scratch = try TemporaryDirectory()
        let container = scratch.url.appendingPathComponent("container")
        let readable = scratch.url.appendingPathComponent("readable")
        for folder in [container, readable] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let run = try runShell("""
            echo kept > \(container.path)/note.txt && echo wrote-container
            echo lost > \(readable.path)/note.txt || echo refused-readable
            echo lost > \(scratch.url.path)/note.txt || echo refused-outside
            cp /bin/true \(container.path)/tool && \(container.path)/tool || echo refused-run
            """, profile: testProfile(readWrite: [container.path], readOnly: [readable.path]))
        #expect(run.output.contains("wrote-container"), "\(run.output)")
        #expect(run.output.contains("refused-readable"), "\(run.output)")
        #expect(run.output.contains("refused-outside"), "\(run.output)")
        #expect(run.output.contains("refused-run"), "writable folders are not executable: \(run.output)")
        #expect(try String(contentsOf: container.appendingPathComponent("note.txt"), encoding: .utf8) == "kept\n")
        #expect(!FileManager.default.fileExists(atPath: readable.appendingPathComponent("note.txt").path))
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("note.txt").path))
    }

    @Test(.enabled(if: (Sandbox.KernelSupport.current.landlockABI ?? 0) >= 4), arguments: [false, true])
    func tcpConnectionsNeedTheNetworkEntitlement(mayConnect: Bool) throws {
        let listener = LoopbackSocket()
        let port = listener.port
        let run = try runPython("""
            import socket
            try:
                socket.create_connection(("127.0.0.1", \(port)), timeout=5).close()
                print("connected")
            except OSError as error:
                print("refused", error.errno)
            try:
                socket.socket().bind(("127.0.0.1", 0))
                print("bound")
            except OSError as error:
                print("bind refused", error.errno)
            """, profile: testProfile(mayConnect: mayConnect))
        listener.close()
        #expect(run.output.contains(mayConnect ? "connected" : "refused \(EACCES)"), "\(run.output)")
        #expect(run.output.contains("bind refused \(EACCES)"), "no extension listens: \(run.output)")
    }

    @Test(.enabled(if: Sandbox.KernelSupport.current.seccomp))
    func theSeccompBaselineRefusesDebuggingMountingNamespacesIoUringAndUnixSockets() throws {
        let run = try runPython("""
            import ctypes, os, socket
            libc = ctypes.CDLL(None, use_errno=True)
            def attempt(name, result, error=\(EPERM)):
                print(name, "refused" if result == -1 and ctypes.get_errno() == error else "allowed")
            attempt("ptrace", libc.ptrace(16, os.getppid(), 0, 0))
            attempt("unshare", libc.unshare(0x10000000))
            attempt("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
            params = ctypes.create_string_buffer(120)
            attempt("io_uring_setup", libc.syscall(425, 4, params))
            attempt("unix socket", libc.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0), error=\(EACCES))
            attempt("unix datagram", libc.socket(socket.AF_UNIX, socket.SOCK_DGRAM, 0), error=\(EACCES))
            pair = (ctypes.c_int * 2)()
            print("socketpair", "allowed" if libc.socketpair(socket.AF_UNIX, socket.SOCK_STREAM, 0, pair) == 0 else "broken")
            print("inet socket", "allowed" if libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0) >= 0 else "broken")
            print("getpid", "allowed" if libc.getpid() == os.getpid() else "broken")
            """, profile: testProfile())
        #expect(run.status == .exited(0), "\(run.output)")
        #expect(run.output.split(separator: "\n") == [
            "ptrace refused", "unshare refused", "mount refused", "io_uring_setup refused", "unix socket refused",
            "unix datagram refused", "socketpair allowed", "inet socket allowed", "getpid allowed",
        ], "\(run.output)")
    }

    @Test(.enabled(if: (Sandbox.KernelSupport.current.landlockABI ?? 0) >= 6))
    func signalsCantReachProcessesOutsideTheSandbox() throws {
        let run = try runShell("kill -0 \(getpid()) && echo reached || echo refused; kill -0 $$ && echo itself",
                               profile: testProfile())
        #expect(run.output.contains("refused"), "\(run.output)")
        #expect(run.output.contains("itself"), "\(run.output)")
    }

    @Test func aMissingLayerIsReportedAndStrictModeRefusesToLaunch() throws {
        let bare = Sandbox.KernelSupport(landlockABI: nil, seccomp: false)
        let lenient = Sandbox(kernel: bare, isStrict: false)
        #expect(lenient.missingLayers.map(\.kind) == [.landlockFilesystem, .landlockNetwork, .landlockScopes, .seccomp, .executableMemory])
        #expect(lenient.missingLayers.allSatisfy { "\($0)".contains("unavailable (") })
        let restrictions = try lenient.restrictions(for: testProfile())
        #expect(restrictions.landlock == nil && !restrictions.seccompBaseline && !restrictions.seccompRefusesExecutableMemory)
        let beforeLinux63 = Sandbox(kernel: Sandbox.KernelSupport(landlockABI: 6, seccomp: true, memoryFilesSealAgainstExecution: false), isStrict: false)
        #expect(beforeLinux63.missingLayers.map(\.kind) == [.executableMemory])
        #expect("\(beforeLinux63.missingLayers[0])".contains("needs Linux 6.3"), "\(beforeLinux63.missingLayers[0])")
        #expect(try beforeLinux63.restrictions(for: testProfile()).seccompRefusesExecutableMemory == false)

        let strict = Sandbox(kernel: bare, isStrict: true)
        #expect(throws: SandboxError.self) { try strict.restrictions(for: testProfile()) }
        do {
            _ = try strict.restrictions(for: testProfile())
        } catch {
            #expect("\(error)".contains("APPEX_SANDBOX=strict"), "\(error)")
        }

        let older = Sandbox(kernel: Sandbox.KernelSupport(landlockABI: 3, seccomp: true), isStrict: false)
        #expect(older.missingLayers.map(\.kind) == [.landlockNetwork, .landlockScopes])
        #expect("\(older.missingLayers[0])".contains("needs Landlock ABI 4; this kernel has 3"))
    }

    @Test func aLayerThatCantBeAppliedFailsTheSpawnAndSaysWhich() throws {
        // A ruleset that handles a right the kernel doesn't know: Landlock refuses it.
        var restrictions = ProcessRestrictions()
        restrictions.landlock = LandlockRuleset(abi: 1, handledFilesystem: LandlockRuleset.FilesystemAccess(rawValue: 1 << 40))
        let launch = ProcessLaunch(executable: "/bin/true", restrictions: restrictions)
        let error = #expect(throws: SystemError.self) { try launch.spawn() }
        #expect(error?.operation == "landlock", "\(String(describing: error))")
        #expect(error?.errno == EINVAL)
    }
}

/// A file outside the profile that the sandboxed process is handed as a descriptor.
@Suite struct HandedDescriptorTests {
    @Test(.enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
    func aDescriptorHandedInIsReadableAndItsPathStaysClosed() throws {
        let scratch = try TemporaryDirectory()
        let file = scratch.url.appendingPathComponent("picked.txt")
        try "picked by the user\n".write(to: file, atomically: true, encoding: .utf8)
        let descriptor = try FileDescriptor.open(file.path, flags: O_RDONLY | O_CLOEXEC)
        defer { descriptor.close() }
        let run = try runSandboxed(
            ["/bin/sh", "-c", "read line <&3 && echo \"fd: $line\"; read line < /proc/$$/fd/3 && echo \"link: $line\" || echo link-refused; read line < \(file.path) || echo path-refused"],
            profile: testProfile(), descriptors: [(descriptor, 3)])
        #expect(run.output.contains("fd: picked by the user"), "\(run.output)")
        #expect(run.output.contains("path-refused"), "\(run.output)")
        // Reopening it through /proc reaches the file by its path again, which Landlock checks.
        #expect(run.output.contains("link-refused"), "\(run.output)")
    }
}
