import AppexSandbox
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// The seccomp baseline's list, call by call. Each probe runs twice in the sandbox's
/// namespaces with Landlock off: once with the baseline, and once without it, where the
/// same call must answer otherwise. So each refusal is the filter's, not a missing
/// capability's or another layer's.
@Suite(.enabled(if: Sandbox.KernelSupport.current.seccomp && Sandbox.KernelSupport.current.isolationProblem == nil))
struct SeccompListTests {
    /// The sandbox with the baseline and namespaces, and no Landlock, which refuses mounts too.
    static func sandbox(seccomp: Bool) -> Sandbox {
        let kernel = Sandbox.KernelSupport.current
        return Sandbox(kernel: Sandbox.KernelSupport(landlockABI: nil, seccomp: seccomp, isolationProblem: kernel.isolationProblem,
                                                     networkIsolationProblem: kernel.networkIsolationProblem), isStrict: false)
    }

    /// Tries each call with arguments it rejects for a reason of its own when the filter
    /// does not stop it, and prints its name and "ok" or the error's name. First the
    /// unmount of the hidden folder `cover`, which the process's own user namespace would
    /// otherwise allow, and whether the cover is still there.
    static func probe(cover: String) -> String {
        """
        import ctypes, errno, os
        libc = ctypes.CDLL(None, use_errno=True)
        def attempt(name, number, *arguments):
            arguments = [ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a) for a in arguments]
            result = libc.syscall(number, *arguments)
            print(name, "ok" if result != -1 else errno.errorcode[ctypes.get_errno()])
        attempt("umount2", 166, b"\(cover)", 2)
        print("cover", "kept" if not os.listdir("\(cover)") else "gone")
        attempt("move_mount", 429, -1, b"", -1, b"", 0)
        attempt("setns", 308, -1, 0)
        attempt("clone", 56, 0x10000000 | 0x200 | 17, 0, 0, 0, 0)  # CLONE_NEWUSER | CLONE_FS | SIGCHLD
        attempt("clone3", 435, 0, 0)
        attempt("bpf", 321, 0, 0, 0)
        attempt("keyctl", 250, 0, -3, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring
        attempt("pidfd_getfd", 438, -1, 0, 0)
        attempt("process_vm_readv", 310, os.getpid(), 0, 0, 0, 0, 0)
        attempt("x32 getpid", 0x40000000 | 39)
        """
    }

    @Test func eachCallOnTheListIsRefusedByTheFilterAndAnsweredWithoutIt() throws {
        let folder = try TemporaryDirectory()
        let cover = folder.url.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: cover, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: cover.appendingPathComponent("appexd.sock"))
        var profile = testProfile()
        profile.hidden = [cover.path]

        let filtered = try runPython(Self.probe(cover: cover.path), profile: profile, sandbox: Self.sandbox(seccomp: true))
        #expect(filtered.status == .exited(0), "\(filtered.output)")
        #expect(filtered.output.split(separator: "\n") == [
            "umount2 EPERM", "cover kept", "move_mount EPERM", "setns EPERM", "clone EPERM", "clone3 ENOSYS", "bpf EPERM",
            "keyctl EPERM", "pidfd_getfd EPERM", "process_vm_readv EPERM", "x32 getpid EPERM",
        ], "\(filtered.output)")

        let unfiltered = try runPython(Self.probe(cover: cover.path), profile: profile, sandbox: Self.sandbox(seccomp: false))
        #expect(unfiltered.status == .exited(0), "\(unfiltered.output)")
        let answers = unfiltered.output.split(separator: "\n")
        #expect(answers.count == 11, "\(unfiltered.output)")
        #expect(Array(answers.prefix(2)) == ["umount2 ok", "cover gone"], "without the filter the cover comes off: \(unfiltered.output)")
        for (answer, refusal) in zip(answers, filtered.output.split(separator: "\n")) where !answer.hasPrefix("cover") {
            #expect(answer != refusal, "the same answer without the filter: \(answer)")
        }
        #expect(try String(contentsOf: cover.appendingPathComponent("appexd.sock"), encoding: .utf8) == "secret")
    }

    /// A 32-bit call through `int 0x80`, which the filter can't read by the same numbers,
    /// ends the process with SIGSYS; without the filter, it answers.
    @Test func aCallOfAnotherArchitectureEndsTheProcess() throws {
        let program = """
            import ctypes, mmap
            code = bytes([0xb8, 20, 0, 0, 0, 0xcd, 0x80, 0xc3])  # mov eax, 20 (getpid on i386); int 0x80; ret
            memory = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            memory.write(code)
            print("answered", ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(memory)))(), flush=True)
            """
        let unfiltered = try runPython(program, profile: testProfile(), sandbox: Self.sandbox(seccomp: false))
        try #require(unfiltered.status == .exited(0), "this kernel runs no 32-bit calls: \(unfiltered.output)")
        #expect(unfiltered.output == "answered 1\n", "the first process of its pid namespace: \(unfiltered.output)")

        let filtered = try runPython(program, profile: testProfile(), sandbox: Self.sandbox(seccomp: true))
        #expect(filtered.status == .signaled(SIGSYS, coreDumped: false), "\(filtered.output)")
        #expect(!filtered.output.contains("answered"), "\(filtered.output)")
    }

    /// Runs a program it writes into a memory file, which has no path for Landlock's execute
    /// right to govern: through `/proc/self/fd/N` and through `execveat(AT_EMPTY_PATH)`
    /// (fexecve). Prints how each step went.
    static let memoryProgram = """
        import errno, os, sys
        def attempt(name, make):
            try:
                fd = make()
                print(name, "made")
                return fd
            except OSError as error:
                print(name, errno.errorcode[error.errno])
        attempt("memfd plain", lambda: os.memfd_create("plain", 1))
        attempt("memfd exec", lambda: os.memfd_create("exec", 1 | 0x10))  # MFD_EXEC
        fd = attempt("memfd sealed", lambda: os.memfd_create("sealed", 1 | 0x8))  # MFD_NOEXEC_SEAL
        fd = fd if fd is not None else os.memfd_create("fallback", 1)
        with open("/bin/true", "rb") as program:
            os.write(fd, program.read())
        for how in ["proc", "fexecve"]:
            sys.stdout.flush()
            child = os.fork()
            if child == 0:
                try:
                    os.execv(f"/proc/self/fd/{fd}", ["true"]) if how == "proc" else os.execve(fd, ["true"], {})
                except OSError as error:
                    print("run", how, errno.errorcode[error.errno], flush=True)
                    os._exit(3)
            _, status = os.waitpid(child, 0)
            if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
                print("run", how, "ran")
        """

    /// The review's low finding: `memfd_create`, then `execve("/proc/self/fd/N")`, ran a
    /// program the extension wrote, though "nothing it writes runs". A memory file must now
    /// be sealed against execution, and one that is can't be run either way.
    @Test(.enabled(if: Sandbox.KernelSupport.current.memoryFilesSealAgainstExecution))
    func aProgramWrittenIntoMemoryNeverRuns() throws {
        let filtered = try runPython(Self.memoryProgram, profile: testProfile(), sandbox: Self.sandbox(seccomp: true))
        #expect(filtered.output.split(separator: "\n") == [
            "memfd plain EACCES", "memfd exec EACCES", "memfd sealed made", "run proc EACCES", "run fexecve EACCES",
        ], "\(filtered.output)")
        let unfiltered = try runPython(Self.memoryProgram, profile: testProfile(), sandbox: Self.sandbox(seccomp: false))
        #expect(unfiltered.output.split(separator: "\n") == [
            "memfd plain made", "memfd exec made", "memfd sealed made", "run proc EACCES", "run fexecve EACCES",
        ], "without the filter, the memory files are made, and only the sealed one can't run: \(unfiltered.output)")
    }
}
