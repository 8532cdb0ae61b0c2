import AppexSamples
import AppexSandbox
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// The namespaces a sandboxed process is made in: its own processes, mounts and users, and
/// no network without the entitlement.
@Suite struct NamespaceTests {
    static let isolated = Sandbox.KernelSupport.current.isolationProblem == nil
    static let networkIsolated = Sandbox.KernelSupport.current.networkIsolationProblem == nil

    @Test(.enabled(if: isolated))
    func theProcessSeesOnlyItsOwnProcessesAndKeepsItsIDs() throws {
        let run = try runPython("""
            import os
            print("pids", sorted(int(name) for name in os.listdir("/proc") if name.isdigit()))
            print("me", os.getpid())
            print("ids", os.getuid(), os.getgid())
            """, profile: testProfile())
        #expect(run.status == .exited(0), "\(run.output)")
        #expect(run.output.contains("pids [1]\n"), "only itself, as the namespace's first process: \(run.output)")
        #expect(run.output.contains("me 1\n"), "\(run.output)")
        #expect(run.output.contains("ids \(getuid()) \(getgid())\n"), "\(run.output)")
    }

    @Test(.enabled(if: networkIsolated), arguments: [false, true])
    func withoutTheNetworkEntitlementNoDatagramLeaves(mayConnect: Bool) throws {
        let receiver = LoopbackSocket(type: SOCK_DGRAM)
        let port = receiver.port
        // UDP is outside Landlock's reach: only the network namespace stops it.
        let run = try runPython("""
            import socket
            print("interfaces", sorted(name for _, name in socket.if_nameindex()))
            try:
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"leak", ("127.0.0.1", \(port)))
                print("sent")
            except OSError as error:
                print("refused", error.errno)
            """, profile: testProfile(mayConnect: mayConnect))
        #expect(run.status == .exited(0), "\(run.output)")
        var buffer = [UInt8](repeating: 0, count: 16)
        let received = recv(receiver.descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        receiver.close()
        if mayConnect {
            #expect(run.output.contains("sent"), "\(run.output)")
            #expect(received == 4)
        } else {
            #expect(run.output.contains("interfaces ['lo']"), "a loopback of its own, and nothing else: \(run.output)")
            #expect(run.output.contains("refused \(ENETUNREACH)"), "\(run.output)")
            #expect(received < 0, "nothing arrived outside")
        }
    }

    @Test(.enabled(if: networkIsolated))
    func processesWithoutTheNetworkShareOneEmptyNamespaceThatNoneCanChange() throws {
        // 0x8914 is SIOCSIFFLAGS; 1 is IFF_UP.
        let program = """
            import fcntl, os, socket, struct
            print("net", os.readlink("/proc/self/ns/net"))
            try:
                fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x8914, struct.pack("16sH14x", b"lo", 1))
                print("loopback up")
            except OSError as error:
                print("refused", error.errno)
            """
        let first = try runPython(program, profile: testProfile())
        let second = try runPython(program, profile: testProfile())
        #expect(first.status == .exited(0) && second.status == .exited(0), "\(first.output)\(second.output)")
        func namespace(_ run: SandboxedRun) -> Substring? {
            run.output.split(separator: "\n").first { $0.hasPrefix("net ") }?.dropFirst(4)
        }
        let host = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        #expect(namespace(first) != nil && namespace(first) != Substring(host), "\(first.output)")
        #expect((namespace(first) == namespace(second)) == Sandbox().sharesEmptyNetwork, "\(first.output)\(second.output)")
        // It holds no capability over the namespace it shares: it can't bring the loopback up.
        #expect(first.output.contains("refused \(EPERM)\n"), "\(first.output)")
    }

    @Test(.enabled(if: networkIsolated && (Sandbox.KernelSupport.current.landlockABI ?? 0) >= 6))
    func aProcessCannotReachAnothersAbstractSocketInTheSharedNamespace() throws {
        // The seccomp baseline refuses every Unix socket; without it, as on a kernel that
        // lacks seccomp, Landlock's scope still keeps an abstract name to its sandbox.
        var kernel = Sandbox.KernelSupport.current
        kernel.seccomp = false
        let sandbox = Sandbox(kernel: kernel, isStrict: false)
        let name = "appex-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let (readyHere, readyThere) = try UnixSocket.pair()
        let (holdHere, holdThere) = try UnixSocket.pair()
        // It listens, connects to itself to show the name is reachable in its namespace, says
        // it is ready, and waits until the test is done.
        let listener = """
            import os, socket
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind("\\0\(name)")
            server.listen(4)
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect("\\0\(name)")
            server.accept()
            print("itself connected")
            os.write(3, b"r")
            os.read(4, 1)
            server.setblocking(False)
            try:
                server.accept()
                print("another connected")
            except BlockingIOError:
                print("nobody else")
            """
        var other: SandboxedRun?
        let run = try runSandboxed(["/usr/bin/python3", "-I", "-c", listener], profile: testProfile(),
                                   descriptors: [(readyThere, 3), (holdThere, 4)], sandbox: sandbox) { _ in
            readyThere.close()
            holdThere.close()
            var ready: UInt8 = 0
            guard Glibc.read(readyHere.rawValue, &ready, 1) == 1 else { return }
            other = try? runSandboxed(["/usr/bin/python3", "-I", "-c", """
                import socket
                try:
                    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect("\\0\(name)")
                    print("connected")
                except OSError as error:
                    print("refused", error.errno)
                """], profile: testProfile(), sandbox: sandbox)
            holdHere.close()
        }
        readyHere.close()
        #expect(run.status == .exited(0), "\(run.output)")
        #expect(run.output.contains("itself connected\n"), "\(run.output)")
        #expect(run.output.contains("nobody else\n"), "\(run.output)")
        #expect(other?.output == "refused \(EPERM)\n", "\(other?.output ?? "not run")")
    }

    @Test(.enabled(if: networkIsolated))
    func aProgramThatCantStartInTheSharedNamespaceFailsTheSpawnWithItsReason() throws {
        let launch = ProcessLaunch(executable: "/nonexistent/program")
        let error = #expect(throws: SandboxError.self) { try Sandbox(isStrict: false).spawn(launch, profile: testProfile()) }
        guard case .spawnFailed(let failure)? = error else { return }
        #expect(failure.operation == "spawn" && failure.subject == "/nonexistent/program" && failure.errno == ENOENT, "\(failure)")
    }

    /// A program that links CAppexSystem, as every extension does.
    static let extensionExecutable = AppexBuild.products.appendingPathComponent("AppexFaultExtension").path

    /// Runs the fault extension under the sandbox, as the fault `fault` asks.
    func runFaultExtension(_ fault: String, whileRunning: (ProcessDescriptor) -> Void = { _ in }) throws -> SandboxedRun {
        let bundle = try TemporaryDirectory()
        let info: [String: Any] = ["NSExtension": ["AppexFault": fault]]
        try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
            .write(to: bundle.url.appendingPathComponent("Info.plist"))
        let profile = SandboxProfile(executable: SandboxProfile.systemExecutable + [AppexBuild.products.path],
                                     readOnly: SandboxProfile.systemReadOnly + [bundle.url.path],
                                     readWrite: SandboxProfile.systemReadWrite)
        return try runSandboxed([Self.extensionExecutable], profile: profile,
                                environment: ["APPEX_EXTENSION_BUNDLE": bundle.url.path], whileRunning: whileRunning)
    }

    @Test(.enabled(if: isolated))
    func aHiddenFolderIsEmptyAndReadOnlyInsideButUntouchedOutside() throws {
        let folder = try TemporaryDirectory()
        let secret = folder.url.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: secret, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: secret.appendingPathComponent("socket-or-anything"))
        var profile = testProfile(readWrite: [folder.url.path])
        profile.hidden = [secret.path, folder.url.appendingPathComponent("absent").path]
        let run = try runShell("ls -A \(secret.path); echo listed; echo x > \(secret.path)/new || echo refused", profile: profile)
        #expect(run.status == .exited(0), "\(run.output)")
        #expect(run.output.hasPrefix("listed\n"), "nothing is listed: \(run.output)")
        #expect(run.output.contains("Read-only file system"), "\(run.output)")
        #expect(run.output.hasSuffix("refused\n"), "\(run.output)")
        #expect(try String(contentsOf: secret.appendingPathComponent("socket-or-anything"), encoding: .utf8) == "secret")
        #expect(!FileManager.default.fileExists(atPath: secret.appendingPathComponent("new").path))
    }

    @Test(.enabled(if: isolated))
    func anAbortIsReportedAsSIGABRTThoughTheProgramIsInItsOwnPidNamespace() throws {
        // As the namespace's first process, abort() would end in SIGSEGV: the kernel drops
        // a signal an init sends itself. The init it forks runs it as its child instead.
        let run = try runFaultExtension("crashAtLaunch")
        #expect(run.status == .signaled(SIGABRT, coreDumped: false), "\(run.output)")
    }

    @Test(.enabled(if: isolated))
    func theProgramsExitStatusIsReportedAndSIGTERMReachesIt() throws {
        // Its bundle names no principal class, so it refuses to start with EX_CONFIG.
        let refused = try runFaultExtension("echo")
        #expect(refused.status == .exited(78), "\(refused.output)")

        let terminated = try runFaultExtension("neverChecksIn") { process in
            usleep(100_000)
            process.send(signal: SIGTERM)
        }
        #expect(terminated.status == .signaled(SIGTERM, coreDumped: false), "\(terminated.output)")
    }
}
