import AppexFUSE
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Mounts `fileSystem` on a new folder for `body`, then unmounts it and removes the folder.
func withMount<T>(_ fileSystem: some FUSEFileSystem, deadline: Duration = .seconds(30),
                  _ body: (String) async throws -> T) async throws -> T {
    let folder = try TemporaryDirectory(prefix: "appex-fuse")
    let mount = try FUSEMount.mount(at: folder.url.path, name: "appex-test")
    let server = FUSEServer(mount: mount, fileSystem: fileSystem, deadline: deadline)
    server.start()
    defer { server.stop() }
    return try await body(folder.url.path)
}

/// Runs a shell script, as a user of the mount would.
func shell(_ script: String) async throws -> CommandRunner.Result {
    try await CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"), environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
        .run(["-c", script])
}

/// A real FUSE mount, served by AppexFUSE, used by the ordinary tools.
@Suite(.serialized) struct MountTests {
    @Test func theShellsToolsWorkOnTheMount() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            let result = try await shell("""
                set -e
                cd '\(mount)'
                mkdir Work
                printf 'first draft' > Work/report.txt
                cp Work/report.txt Work/copy.txt
                cat Work/copy.txt; echo
                mv Work/copy.txt Work/moved.txt
                ls Work
                mkdir Work/Old && mv Work/moved.txt Work/Old/
                ls -R Work | tr '\\n' ' '; echo
                rm Work/Old/moved.txt && rmdir Work/Old
                ls Work
                stat -c '%s %F' Work/report.txt
                """)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == """
                first draft
                moved.txt
                report.txt
                Work: Old report.txt  Work/Old: moved.txt 
                report.txt
                11 regular file

                """)
            #expect(tree.contents(at: "Work/report.txt") == Array("first draft".utf8))
        }
    }

    @Test func anEditorsSaveByRenameReplacesTheFile() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            let result = try await shell("""
                set -e
                cd '\(mount)'
                printf 'old' > notes.txt
                printf 'new contents' > .notes.txt.swp
                chmod 600 .notes.txt.swp
                mv .notes.txt.swp notes.txt
                cat notes.txt; echo; ls -a | tr '\\n' ' '
                """)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "new contents\n. .. notes.txt ")
            #expect(tree.contents(at: "notes.txt") == Array("new contents".utf8))
        }
    }

    @Test func bigFilesCrossInPiecesOfAMebibyte() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            let result = try await shell("""
                set -e
                head -c 5000000 /dev/urandom > '\(mount)/../random-\(getpid())'
                cp '\(mount)/../random-\(getpid())' '\(mount)/big'
                cmp '\(mount)/../random-\(getpid())' '\(mount)/big' && echo same
                rm '\(mount)/../random-\(getpid())'
                """)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "same\n")
            #expect(tree.contents(at: "big")?.count == 5_000_000)
        }
    }

    @Test func rsyncCopiesAFolderOntoTheMountWithItsModesAndTimes() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            let source = try TemporaryDirectory(prefix: "appex-rsync")
            let result = try await shell("""
                set -e
                cd '\(source.url.path)'
                mkdir -p Photos/2026 && printf 'jpeg' > Photos/2026/beach.jpg && printf 'list' > todo.txt
                chmod 640 todo.txt && touch -d '2020-02-02 12:00:00' todo.txt
                rsync -a ./ '\(mount)/Backup/'
                rsync -a ./ '\(mount)/Backup/' --itemize-changes | wc -l
                stat -c '%a %Y' '\(mount)/Backup/todo.txt'
                cat '\(mount)/Backup/Photos/2026/beach.jpg'
                """)
            #expect(result.status == 0, "\(result.standardError)")
            let expectedTime = try await shell("TZ=UTC0 date -d '2020-02-02 12:00:00' +%s").standardOutput
            #expect(result.standardOutput == "0\n640 \(expectedTime)jpeg", "a second rsync finds nothing to copy")
            #expect(tree.contents(at: "Backup/todo.txt") == Array("list".utf8))
        }
    }

    @Test func twoHundredFilesAreOpenAtOnce() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            let result = try await shell("""
                set -e
                cd '\(mount)'
                for i in $(seq 1 200); do printf "$i" > "f$i"; done
                python3 -c '
                import os, threading
                files = [open("f%d" % i) for i in range(1, 201)]
                sums = []
                def read(f): sums.append(int(f.read()))
                threads = [threading.Thread(target=read, args=(f,)) for f in files]
                [t.start() for t in threads]; [t.join() for t in threads]
                print(len(files), sum(sums))
                '
                """)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "200 20100\n")
        }
    }

    @Test func aHungFileSystemFailsTheCallerAtTheDeadline() async throws {
        let tree = MemoryTree(beforeRead: { try? await Task.sleep(for: .seconds(3600)) })
        try await withMount(tree, deadline: .milliseconds(500)) { mount in
            let setup = try await shell("printf 'stuck' > '\(mount)/file'")
            #expect(setup.status == 0, "\(setup.standardError)")
            let started = ContinuousClock.now
            let result = try await shell("cat '\(mount)/file'")
            #expect(result.status != 0)
            #expect(result.standardError.contains("Connection timed out"), "\(result.standardError)")
            #expect(ContinuousClock.now - started < .seconds(20))
            // The mount still serves everything else.
            let listing = try await shell("ls '\(mount)'")
            #expect(listing.standardOutput == "file\n")
        }
    }

    @Test func aNameThatIsNotUTF8IsRefusedAndTheMountGoesOn() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            let result = try await shell("cd '\(mount)' && touch \"$(printf 'caf\\351')\"; echo $?; touch café && ls")
            #expect(result.standardError.contains("Invalid or incomplete multibyte"), "\(result.standardError)")
            #expect(result.standardOutput == "1\ncafé\n")
        }
    }

    @Test func onlyTheOwnerUsesTheMount() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            _ = try await shell("printf 'private' > '\(mount)/file'; chmod 644 '\(mount)/file'")
            let other = try await shell("setpriv --reuid 65534 --regid 65534 --clear-groups cat '\(mount)/file'")
            #expect(other.status != 0)
            #expect(other.standardError.contains("Permission denied"), "\(other.standardError)")
            #expect(try await shell("cat '\(mount)/file'").standardOutput == "private")
        }
    }

    @Test func theServingProcessCanUseItsOwnMountFromEveryPoolThread() async throws {
        let tree = MemoryTree()
        try await withMount(tree) { mount in
            let setup = try await shell("cd '\(mount)' && for i in $(seq 1 16); do printf \"$i\" > \"f$i\"; done")
            #expect(setup.status == 0)
            // Sixteen tasks block the cooperative pool's threads (one per core) in reads of the mount.
            let read = await withTaskGroup(of: Int.self) { group in
                for index in 1...16 {
                    group.addTask { Int(String(decoding: FileManager.default.contents(atPath: "\(mount)/f\(index)") ?? Data(), as: UTF8.self)) ?? 0 }
                }
                return await group.reduce(0, +)
            }
            #expect(read == 136)
        }
    }

    @Test func stoppingWhileAProcessStillUsesTheMountEndsItAfterTheGrace() async throws {
        let folder = try TemporaryDirectory(prefix: "appex-fuse")
        let mount = try FUSEMount.mount(at: folder.url.path, name: "appex-test")
        let server = FUSEServer(mount: mount, fileSystem: MemoryTree())
        server.start()
        // A process whose working folder is the mount keeps the file system alive after the detach.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        holder.arguments = ["-c", "cd '\(folder.url.path)' && exec sleep 30"]
        try holder.run()
        defer { holder.terminate() }
        #expect(await eventually {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(holder.processIdentifier)/cwd")) == folder.url.path
                && (try? String(contentsOfFile: "/proc/\(holder.processIdentifier)/comm", encoding: .utf8)) == "sleep\n"
        })
        let started = ContinuousClock.now
        try await onThread { server.stop(grace: .milliseconds(300)) }
        #expect(ContinuousClock.now - started < .seconds(10), "stopped after the grace, not when the process let go")
        let mounts = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        #expect(!mounts.contains(folder.url.path))
    }

    @Test func aMountWhoseServerIsGoneIsStaleAndCanBeDetached() async throws {
        let folder = try TemporaryDirectory(prefix: "appex-fuse")
        let mount = try FUSEMount.mount(at: folder.url.path, name: "appex-test")
        mount.device.close() // the server ends without unmounting: the kernel aborts the connection
        #expect(FUSEMount.isStale(folder.url.path))
        #expect(FUSEMount.detach(folder.url.path))
        #expect(!FUSEMount.isStale(folder.url.path))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) == [])
    }
}
