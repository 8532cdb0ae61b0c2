import AppexLauncher
import AppexSamples
import AppexSandbox
import AppexSystem
import Foundation
import Glibc
import Testing

/// The launcher (`appex-launcher`, docs/zygote.md) starts a program by loading it into a
/// child forked from a process that has already started the shared Swift runtime: the child
/// gets its arguments, environment, descriptors and sandbox as a spawned one does, its
/// locks work, and how it ended reaches the caller through the init's report, since the
/// caller is not its parent. Executables it can't load are refused, saying why, so that
/// they are spawned instead.
@Suite(.timeLimit(.minutes(2))) final class LauncherTests {
    static let launcherExecutable = AppexBuild.products.appendingPathComponent("appex-launcher").path
    static let program = AppexBuild.products.appendingPathComponent("AppexLoadedProgram")
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["allowed", "forbidden"] { try Data(name.utf8).write(to: folder.appendingPathComponent(name)) }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A copy of the program, beside it so that its run path still finds the runtime, with
    /// DF_1_PIE cleared as an install clears it.
    func loadableCopy() throws -> String {
        let copy = AppexBuild.products.appendingPathComponent("AppexLoadedProgram-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: Self.program.path, toPath: copy)
        let file = try FileDescriptor.open(copy, flags: O_RDWR)
        defer { file.close() }
        #expect(try LoadableExecutable.clearPIEFlag(in: file), "swift build flags an executable DF_1_PIE")
        #expect(try !LoadableExecutable.clearPIEFlag(in: file), "once is enough")
        return copy
    }

    /// Why the launcher can't load the executable at `path`, or nil if it can.
    func refusal(_ path: String, runtime: String, hasAppexKit: Bool = false) throws -> LoadableExecutable.Refusal? {
        let identity = try #require(FileIdentity(path: runtime))
        let file = try FileDescriptor.open(path)
        defer { file.close() }
        do {
            _ = try LoadableExecutable(file, path: path, runtime: identity, hasAppexKit: hasAppexKit)
            return nil
        } catch {
            return error
        }
    }

    /// A sanitized build's programs carry their sanitizer's runtime, and are spawned.
    static let sanitized = "a sanitized program carries its sanitizer's runtime, which must be alone in its process, so it is spawned (aSanitizedProgramIsSpawnedSayingWhy)"

    /// A sandboxed launch of `executable` with `arguments`, its output to `output`.
    func launch(_ executable: String, _ arguments: [String], output: FileDescriptor, grant: String? = nil,
                confined: [String] = []) throws -> ProcessLaunch {
        let profile = SandboxProfile(executable: SandboxProfile.systemExecutable + [AppexBuild.products.path],
                                     readOnly: SandboxProfile.systemReadOnly + [grant ?? folder.appendingPathComponent("allowed").path],
                                     readWrite: SandboxProfile.systemReadWrite, confined: confined)
        // A sanitized build's settings, as appexd passes them on: LeakSanitizer off.
        return ProcessLaunch(executable: executable, arguments: arguments, environment: Sanitizers.settings.merging(["GREETING": "hello"]) { $1 },
                             descriptors: [(output, 1)], diesWithParent: true,
                             restrictions: try Sandbox(isStrict: false).restrictions(for: profile))
    }

    func read(_ pipe: FileDescriptor) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = Glibc.read(pipe.rawValue, &buffer, buffer.count)
            if got <= 0 { break }
            bytes += buffer.prefix(got)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(.disabled(if: Sanitizers.areActive, Comment(rawValue: sanitized))) func aLoadedProgramRunsInItsSandboxAsASpawnedOneDoes() throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil, "the launcher starts programs only in a pid namespace")
        let launcher = try Launcher(executable: Self.launcherExecutable)
        let copy = try loadableCopy()
        defer { unlink(copy) }
        #expect(launcher.runtimePath.hasSuffix("/libswiftCore.so"))
        #expect(try refusal(copy, runtime: launcher.runtimePath) == nil)
        #expect(try refusal(Self.program.path, runtime: launcher.runtimePath) == nil, "loadable but for the flag, which the copy has cleared")
        let pipe = try FileDescriptor.pipe()
        let process = try #require(try launcher.start(launch(copy, ["7", folder.path], output: pipe.write)), "the copy is loadable")
        pipe.write.close()
        let output = read(pipe.read)
        #expect(process.waitForExit(timeoutMilliseconds: 20_000))
        #expect(process.reap() == .exited(7), "\(output)")
        #expect(!process.isChild)
        let lines = output.split(separator: "\n").map(String.init)
        // Its own three and the listing's: nothing of the launcher's, nor the init's pipe.
        #expect(lines == ["pid 2 arguments 7 \(folder.path)", "descriptors 0 1 2 3", "bundle \(copy) process \(URL(fileURLWithPath: copy).lastPathComponent)", "greeting hello", #"json {"answer":42}"#, "lock handed over",
                          "files allowed: read forbidden: Permission denied"], "\(output)")
        // It forks only from one thread: a second would be copied into no child, and could
        // hold a lock a child then waits for for ever.
        // ThreadSanitizer's runtime runs a thread of its own, which no child inherits either.
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(launcher.process.processID)/task")
        #expect(threads.count == (Sanitizers.active == .thread ? 2 : 1), "\(threads)")
    }

    @Test func theSameProgramSpawnedSaysTheSame() throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil)
        let copy = try loadableCopy()
        defer { unlink(copy) }
        let pipe = try FileDescriptor.pipe()
        let process = try launch(copy, ["7", folder.path], output: pipe.write).spawn()
        pipe.write.close()
        let output = read(pipe.read)
        #expect(process.end(graceMilliseconds: 20_000) == .exited(7), "\(output)")
        // It doesn't link CAppexSystem, whose init.c would fork it off an init: it is pid 1,
        // and keeps the init's status pipe (3).
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines == ["pid 1 arguments 7 \(folder.path)", "descriptors 0 1 2 3 4", "bundle \(copy) process \(URL(fileURLWithPath: copy).lastPathComponent)", "greeting hello", #"json {"answer":42}"#, "lock handed over",
                          "files allowed: read forbidden: Permission denied"], "the cleared flag leaves it runnable: \(output)")
    }

    @Test(.disabled(if: Sanitizers.areActive, Comment(rawValue: sanitized))) func aStepThatFailsIsReportedAndLeavesNoProcess() throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil)
        let launcher = try Launcher(executable: Self.launcherExecutable)
        let copy = try loadableCopy()
        defer { unlink(copy) }
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: "/etc")
        let pipe = try FileDescriptor.pipe()
        let order = try launch(copy, ["0"], output: pipe.write, grant: folder.appendingPathComponent("link/allowed").path,
                               confined: [folder.path])
        #expect {
            _ = try launcher.start(order)
        } throws: { error in
            guard case .launch(let failure) = error as? Launcher.Failure else { return false }
            return "\(failure)".contains("granting \(folder.path)/link/allowed refused: a symbolic link is on the way")
        }
        pipe.write.close()
        #expect(read(pipe.read).isEmpty, "nothing ran")
        #expect(ProcessTree.children(of: launcher.process.processID).isEmpty)
        // And it goes on serving.
        let second = try FileDescriptor.pipe()
        let process = try #require(try launcher.start(launch(copy, ["3"], output: second.write)))
        second.write.close()
        _ = read(second.read)
        #expect(process.waitForExit(timeoutMilliseconds: 20_000))
        #expect(process.reap() == .exited(3))
    }

    @Test(.disabled(if: Sanitizers.areActive, Comment(rawValue: sanitized))) func aProgramEndsWithItsLauncher() throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil)
        let launcher = try Launcher(executable: Self.launcherExecutable)
        let copy = try loadableCopy()
        defer { unlink(copy) }
        let pipe = try FileDescriptor.pipe()
        let process = try #require(try launcher.start(launch(copy, ["wait"], output: pipe.write)))
        pipe.write.close()
        #expect(!process.waitForExit(timeoutMilliseconds: 200), "it waits")
        launcher.process.send(signal: SIGKILL)
        #expect(process.waitForExit(timeoutMilliseconds: 20_000), "its init watches the launcher, and ends it")
        #expect(process.reap() == .signaled(SIGKILL, coreDumped: false))
        // What comes next is told that the launcher is gone, to spawn instead.
        let next = try FileDescriptor.pipe()
        #expect {
            _ = try launcher.start(launch(copy, ["0"], output: next.write))
        } throws: { error in
            guard case .launcher = error as? Launcher.Failure else { return false }
            return true
        }
    }

    /// A launcher that doesn't answer (here, stopped) holds no launch for ever: it is ended,
    /// and the caller told to spawn.
    @Test(.disabled(if: Sanitizers.areActive, Comment(rawValue: sanitized))) func aLauncherThatDoesntAnswerIsEnded() throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil)
        let launcher = try Launcher(executable: Self.launcherExecutable, answerDeadline: .milliseconds(500))
        let copy = try loadableCopy()
        defer { unlink(copy) }
        launcher.process.send(signal: SIGSTOP)
        let pipe = try FileDescriptor.pipe()
        #expect {
            _ = try launcher.start(launch(copy, ["0"], output: pipe.write))
        } throws: { error in
            guard case .launcher(let failure) = error as? Launcher.Failure else { return false }
            return failure.errno == ETIMEDOUT
        }
        #expect(launcher.process.waitForExit(timeoutMilliseconds: 20_000), "it was ended")
    }

    @Test(.disabled(if: Sanitizers.areActive, Comment(rawValue: sanitized))) func whatCantBeLoadedIsSpawnedAndSaysWhy() throws {
        let launcher = try Launcher(executable: Self.launcherExecutable)
        let statically = AppexBuild.products.appendingPathComponent("AppexFaultExtension").path
        #expect(try refusal(statically, runtime: launcher.runtimePath) == .carriesItsOwnRuntime)
        #expect(try refusal("/etc/hostname", runtime: launcher.runtimePath).map { "\($0)" }?.contains("it is not an ELF file") == true)
        // Stripped: no section headers, so no symbol table.
        let stripped = try loadableCopy()
        defer { unlink(stripped) }
        let file = try FileDescriptor.open(stripped, flags: O_RDWR)
        var none: UInt16 = 0
        #expect(pwrite(file.rawValue, &none, 2, 60) == 2)
        file.close()
        #expect(try refusal(stripped, runtime: launcher.runtimePath) == .noMain("it has no symbol table (.symtab): it was stripped"))
        // Flagged DF_1_PIE, as built: spawned.
        let pipe = try FileDescriptor.pipe()
        #expect(try launcher.start(launch(Self.program.path, ["0"], output: pipe.write)) == nil)
        #expect(try launcher.start(ProcessLaunch(executable: statically)) == nil, "no sandbox, so no init to report")
    }

    @Test(.enabled(if: Sanitizers.areActive)) func aSanitizedProgramIsSpawnedSayingWhy() throws {
        let launcher = try Launcher(executable: Self.launcherExecutable)
        let copy = try loadableCopy()
        defer { unlink(copy) }
        let refused = try refusal(copy, runtime: launcher.runtimePath)
        guard case .carriesASanitizer = refused else {
            Issue.record("a sanitized program was not refused: \(String(describing: refused))")
            return
        }
        let pipe = try FileDescriptor.pipe()
        #expect(try launcher.start(launch(copy, ["0"], output: pipe.write)) == nil, "spawned")
    }

    /// The bundle's author writes the executable: every offset, size and count in its headers
    /// is checked, and a file with any of them corrupted is refused or read, never trusted.
    @Test func corruptedHeadersAreRefusedNotTrusted() throws {
        let launcher = try Launcher(executable: Self.launcherExecutable)
        let runtime = try #require(FileIdentity(path: launcher.runtimePath))
        let original = try Data(contentsOf: Self.program)
        var generator = SystemRandomNumberGenerator()
        let path = folder.appendingPathComponent("corrupted").path
        var refused = 0
        for round in 0..<300 {
            var bytes = original
            // Header and program headers, then anywhere.
            let span = round < 200 ? min(4096, bytes.count) : bytes.count
            for _ in 0..<(1 + round % 8) {
                let index = Int.random(in: 0..<span, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            try bytes.write(to: URL(fileURLWithPath: path))
            let file = try FileDescriptor.open(path)
            if (try? LoadableExecutable(file, path: path, runtime: runtime, hasAppexKit: false)) == nil { refused += 1 }
            file.close()
        }
        #expect(refused > 0)
    }

    // MARK: The shared AppexKit

    static let appexKit = AppexBuild.products.appendingPathComponent(LoadableExecutable.appexKitLibrary).path

    /// A program linked to the shared AppexKit, as an extension built against it is, with
    /// DF_1_PIE cleared as an install clears it: built now, in C, by the toolchain's clang. It
    /// says which file the AppexKit code it calls comes from. Its run path finds the Swift
    /// runtime, and no AppexKit: the launcher's, or `LD_LIBRARY_PATH`, must provide it.
    func appexKitProgram(runtime: String) throws -> String {
        let source = folder.appendingPathComponent("program.c")
        try Data(#"""
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <stdio.h>
            extern int appex_allow_any_tracer(void);
            int main(void) {
                Dl_info info;
                if (!dladdr((void *)appex_allow_any_tracer, &info)) return 3;
                printf("appexkit %s\n", info.dli_fname);
                return 0;
            }
            """#.utf8).write(to: source)
        let program = AppexBuild.products.appendingPathComponent("AppexKitProgram-\(UUID().uuidString)").path
        let runtimeFolder = Launcher.folder(of: runtime)
        let clang = Process()
        clang.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        clang.arguments = ["clang", "-pie", "-fPIE", "-o", program, source.path, "-L", AppexBuild.products.path, "-lAppexKit",
                           "-Wl,--no-as-needed", "-L", runtimeFolder, "-lswiftCore", "-Wl,-rpath,\(runtimeFolder)"]
        try clang.run()
        clang.waitUntilExit()
        try #require(clang.terminationStatus == 0, "clang built the program")
        let file = try FileDescriptor.open(program, flags: O_RDWR)
        defer { file.close() }
        #expect(LoadableExecutable.needsAppexKit(file))
        try LoadableExecutable.clearPIEFlag(in: file)
        return program
    }

    @Test(.disabled(if: Sanitizers.areActive, Comment(rawValue: sanitized))) func aProgramLinkedToAppexKitRunsWithTheLaunchersOwn() throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil, "the launcher starts programs only in a pid namespace")
        let launcher = try Launcher(executable: Self.launcherExecutable, appexKit: Self.appexKit)
        #expect(launcher.appexKitPath == Self.appexKit)
        let program = try appexKitProgram(runtime: launcher.runtimePath)
        defer { unlink(program) }
        #expect(try refusal(program, runtime: launcher.runtimePath, hasAppexKit: true) == nil)
        #expect(try refusal(program, runtime: launcher.runtimePath) == .needsAppexKit)
        // Forked, and the AppexKit it calls is the one the launcher loaded, found by its name.
        let pipe = try FileDescriptor.pipe()
        let process = try #require(try launcher.start(launch(program, [], output: pipe.write)), "it is loadable")
        pipe.write.close()
        let output = read(pipe.read)
        #expect(process.waitForExit(timeoutMilliseconds: 20_000))
        #expect(process.reap() == .exited(0), "\(output)")
        #expect(output == "appexkit \(Self.appexKit)\n")
        // Loading AppexKit started no thread in the launcher.
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(launcher.process.processID)/task")
        #expect(threads.count == 1, "\(threads)")
    }

    @Test(.disabled(if: Sanitizers.areActive, "a sanitized AppexKit needs its sanitizer's runtime loaded before it, which a program built without one lacks"))
    func spawnedItFindsTheSameAppexKitThroughItsEnvironmentAndSandbox() throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil)
        let runtime = try #require(LauncherTests.sharedRuntime(), "the Swift runtime is installed")
        let program = try appexKitProgram(runtime: runtime)
        defer { unlink(program) }
        let pipe = try FileDescriptor.pipe()
        let plain = try launch(program, [], output: pipe.write)
        let provided = try SharedAppexKit(path: Self.appexKit).provided(to: plain)
        #expect(provided.environment["LD_LIBRARY_PATH"] == AppexBuild.products.path)
        #expect(provided.restrictions?.landlock?.rules.last == LandlockRuleset.Rule(Self.appexKit, .readFile))
        let process = try provided.spawn()
        pipe.write.close()
        let output = read(pipe.read)
        #expect(process.end(graceMilliseconds: 20_000) == .exited(0), "\(output)")
        #expect(output == "appexkit \(Self.appexKit)\n")
        // Without it, the loader finds no AppexKit, and says so.
        let failing = try FileDescriptor.pipe()
        let bare = try launch(program, [], output: failing.write)
        let unprovided = try ProcessLaunch(executable: bare.executable, environment: bare.environment,
                                           descriptors: [(failing.write, 1), (failing.write, 2)], restrictions: bare.restrictions).spawn()
        failing.write.close()
        let complaint = read(failing.read)
        #expect(unprovided.end(graceMilliseconds: 20_000) == .exited(127), "\(complaint)")
        #expect(complaint.contains("libAppexKit.so: cannot open shared object file"), "\(complaint)")
        // A program that doesn't need it is left as it was.
        let other = try launch(Self.program.path, [], output: pipe.read)
        let untouched = try SharedAppexKit(path: Self.appexKit).provided(to: other)
        #expect(untouched.environment == other.environment && untouched.restrictions == other.restrictions)
    }

    @Test func aProgramThatCarriesAppexKitItselfIsNotLoadedBesideTheShared() throws {
        let runtime = try #require(LauncherTests.sharedRuntime())
        let carrying = AppexBuild.products.appendingPathComponent("AppexSharedRuntimeExtension").path
        // A sanitized build's is refused first for its sanitizer (aSanitizedProgramIsSpawnedSayingWhy).
        if !Sanitizers.areActive {
            #expect(try refusal(carrying, runtime: runtime, hasAppexKit: true) == .carriesItsOwnAppexKit)
            #expect(try refusal(carrying, runtime: runtime) == nil, "a launcher without the shared AppexKit loads it")
        }
        // The function that tells: the shared AppexKit defines it too, so it can't be renamed unseen.
        let kit = try FileDescriptor.open(Self.appexKit)
        defer { kit.close() }
        #expect(try ELFFile(reading: kit).definedFunctions(named: [LoadableExecutable.appexKitEntry]).count == 1)
    }

    /// The shared Swift runtime that programs built here link to, as the launcher finds it.
    static func sharedRuntime() -> String? {
        let file = try? FileDescriptor.open(program.path)
        defer { file?.close() }
        guard let file, let elf = try? ELFFile(reading: file), let entries = try? elf.dynamicEntries(),
              let runPath = try? elf.dynamicStrings(tagged: ELFFile.tagRunPath, in: entries) else { return nil }
        return runPath.flatMap { $0.split(separator: ":") }.map { "\($0)/\(LoadableExecutable.runtimeLibrary)" }
            .first { FileManager.default.fileExists(atPath: $0) }
    }
}
