import AppexFUSE
import AppexFileProviderHost
import AppexLocking
import AppexTesting
import FileProvider
import Foundation
import Glibc
import Testing

/// Runs a shell script, as a user of the mount would.
func shell(_ script: String) async throws -> CommandRunner.Result {
    try await CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"), environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        .run(["-c", script])
}

/// What a domain's mount reported, in order.
final class Reports: Sendable {
    let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }
}

/// A folder for a domain's replica and mount point, removed afterwards.
struct DomainFolders: ~Copyable {
    let home = try! TemporaryDirectory(prefix: "appex-domain")
    var replica: URL { home.url.appendingPathComponent("Replica") }
    var mountPoint: URL { home.url.appendingPathComponent("Cloud/Shelf/Work") }
}

/// Mounts `provider`'s domain over the replica in `folders`, for `body`.
func withDomain<T>(_ provider: ShelfProvider, _ folders: borrowing DomainFolders, deadline: Duration = .seconds(30),
                   problems: Reports? = nil, _ body: (String) async throws -> T) async throws -> T {
    let calls = InProcessProvider(provider, domain: NSFileProviderDomainIdentifier("work"), deadline: deadline)
    let mount = try DomainMount(provider: calls, replica: folders.replica, mountPoint: folders.mountPoint, deadline: deadline + .seconds(5),
                                report: { problem in problems?.lines.withLock { $0.append(problem) } })
    defer { mount.stop() }
    return try await body(mount.path)
}

/// A File Provider domain mounted as a folder: listed and fetched on demand through the
/// provider's own API, kept in the replica, and safe from what the provider answers.
@Suite(.serialized) struct DomainMountTests {
    @Test func foldersAreListedAndFilesFetchedOnDemand() async throws {
        let provider = ShelfProvider(pageSize: 2)
        let folders = DomainFolders()
        try await withDomain(provider, folders) { mount in
            #expect(provider.fetchCount.withLock { $0 } == 0)
            let result = try await shell("cd '\(mount)' && ls && ls Work && cat Work/report.txt && stat -c '%s %F' Work/plan.md Photos")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "Photos\nWork\nnotes.txt\nplan.md\nreport.txt\nquarterly figures\n7 regular file\n0 directory\n")
            #expect(provider.fetchCount.withLock { $0 } == 1, "only the file read was fetched")
            #expect(provider.pageCount.withLock { $0 } == 3, "root in one page, Work's three items in two")
            let again = try await shell("cat '\(mount)/Work/report.txt'")
            #expect(again.standardOutput == "quarterly figures\n")
            #expect(provider.fetchCount.withLock { $0 } == 1, "read again from the replica")
        }
    }

    @Test(.enabled(if: geteuid() == 0, "passthrough needs CAP_SYS_ADMIN"))
    func theKernelReadsAndWritesTheLocalCopiesItself() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        let calls = InProcessProvider(provider, domain: NSFileProviderDomainIdentifier("work"))
        let mount = try DomainMount(provider: calls, replica: folders.replica, mountPoint: folders.mountPoint)
        defer { mount.stop() }
        let result = try await shell("cd '\(mount.path)/Work' && cat report.txt && cat report.txt && printf 'more\n' >> plan.md && cat plan.md")
        #expect(result.standardOutput == "quarterly figures\nquarterly figures\n# Plan\nmore\n", "\(result.standardError)")
        #expect(mount.fileSystem.userSpaceReads == 0, "every read went from the kernel to the local copy")
        #expect(await eventually { provider.contents(at: "Work/plan.md") == "# Plan\nmore\n" }, "a write the file system never saw still reaches the provider")
    }

    @Test func theReplicaOutlivesTheMount() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        try await withDomain(provider, folders) { mount in
            _ = try await shell("cat '\(mount)/Work/report.txt'")
        }
        let pagesBefore = provider.pageCount.withLock { $0 }
        try await withDomain(provider, folders) { mount in
            let result = try await shell("ls '\(mount)/Work' && cat '\(mount)/Work/report.txt'")
            #expect(result.standardOutput == "notes.txt\nplan.md\nreport.txt\nquarterly figures\n")
        }
        #expect(provider.fetchCount.withLock { $0 } == 1, "the contents were kept")
        #expect(provider.pageCount.withLock { $0 } == pagesBefore, "the listings were kept")
    }

    @Test func twoHundredOpensOfAFileNotYetFetchedFetchItOnce() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        try await withDomain(provider, folders) { mount in
            _ = try await shell("ls '\(mount)/Work' > /dev/null")
            let result = try await shell("""
                cd '\(mount)/Work' && python3 -c '
                import threading
                texts = []
                def read(): texts.append(open("report.txt").read())
                threads = [threading.Thread(target=read) for _ in range(200)]
                [t.start() for t in threads]; [t.join() for t in threads]
                print(len(texts), len(set(texts)))
                '
                """)
            #expect(result.standardOutput == "200 1\n", "\(result.standardError)")
            #expect(provider.fetchCount.withLock { $0 } == 1)
        }
    }

    @Test func namesThatWouldEscapeTheFolderAndDuplicatesAreLeftOut() async throws {
        let problems = Reports()
        let folders = DomainFolders()
        try await withDomain(ShelfProvider(behaviour: .hostileNames), folders, problems: problems) { mount in
            let result = try await shell("ls -a '\(mount)' && stat -c %s '\(mount)/twin.txt' && ls -a '\(mount)/Photos'")
            #expect(result.standardOutput == ".\n..\nPhotos\nWork\ntwin.txt\n5\n.\n..\nbeach.jpg\n", "\(result.standardError)")
        }
        let reported = problems.all.joined(separator: "\n")
        for reason in ["a name can't be . or ..", "a name can't hold a /", "a name can't be empty", "a second item named \"twin.txt\"",
                       "a second item with the identifier \"twin\"", "the system's identifier", "whose parent is \"photos\""] {
            #expect(reported.contains(reason), "\(reason) not in \(reported)")
        }
    }

    @Test func anEndlessListingFailsWithAClearReport() async throws {
        let problems = Reports()
        let folders = DomainFolders()
        try await withDomain(ShelfProvider(behaviour: .endlessListing), folders, problems: problems) { mount in
            let result = try await shell("ls '\(mount)'")
            #expect(result.status != 0)
            #expect(result.standardError.contains("Input/output error"), "\(result.standardError)")
        }
        #expect(problems.all.contains { $0.contains("it gave 1000 pages") })
    }

    @Test func aFetchThatNeverEndsFailsTheReadAtTheDeadline() async throws {
        let problems = Reports()
        let folders = DomainFolders()
        try await withDomain(ShelfProvider(behaviour: .hangingFetch), folders, deadline: Duration.milliseconds(500), problems: problems) { mount in
            let result = try await shell("cat '\(mount)/Work/report.txt'; ls '\(mount)/Work'")
            #expect(result.standardError.contains("Connection timed out"), "\(result.standardError)")
            #expect(result.standardOutput == "notes.txt\nplan.md\nreport.txt\n", "the mount goes on serving")
        }
        #expect(problems.all.contains { $0.contains("didn't answer fetchContents(for: report) within") })
    }

    @Test func aSecondAnswerToOneCallIsIgnored() async throws {
        let folders = DomainFolders()
        try await withDomain(ShelfProvider(behaviour: .answersTwice), folders) { mount in
            let result = try await shell("cat '\(mount)/Work/report.txt' '\(mount)/Work/plan.md'")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "quarterly figures\n# Plan\n")
        }
    }

    @Test func aProvidersErrorReachesTheCallerAsItsMeaning() async throws {
        let folders = DomainFolders()
        try await withDomain(ShelfProvider(behaviour: .failingFetch(.serverUnreachable)), folders) { mount in
            let result = try await shell("cat '\(mount)/Work/report.txt'")
            #expect(result.standardError.contains("No route to host"), "\(result.standardError)")
        }
        let other = DomainFolders()
        try await withDomain(ShelfProvider(behaviour: .failingFetch(.notAuthenticated)), other) { mount in
            let result = try await shell("cat '\(mount)/Work/report.txt'")
            #expect(result.standardError.contains("Permission denied"), "\(result.standardError)")
        }
    }
}
