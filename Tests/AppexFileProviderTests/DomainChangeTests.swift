import AppexFileProviderHost
import AppexLocking
import AppexTesting
import FileProvider
import Foundation
import Testing

/// Changes made on a domain's mount reach the provider through its own API, after close, in
/// order, and survive a restart while the provider is out of reach.
@Suite(.serialized) struct DomainChangeTests {
    @Test func copiesFoldersMovesAndRemovalsReachTheProvider() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        try await withDomain(provider, folders) { mount in
            let result = try await shell("""
                set -e
                cd '\(mount)'
                printf 'new figures\n' > Work/figures.txt
                mkdir -p Archive/2026
                printf 'old' > Archive/2026/old.txt
                mv Work/plan.md Archive/plan.md
                rm Work/notes.txt
                ls Work Archive
                """)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "Archive:\n2026\nplan.md\n\nWork:\nfigures.txt\nreport.txt\n")
            #expect(await eventually {
                provider.contents(at: "Work/figures.txt") == "new figures\n" && provider.contents(at: "Archive/2026/old.txt") == "old"
                    && provider.contents(at: "Archive/plan.md") == "# Plan\n" && provider.contents(at: "Work/plan.md") == nil
                    && provider.contents(at: "Work/notes.txt") == nil
            })
        }
    }

    @Test func anEditorsSaveByRenameLeavesTheNewContentsUnderTheName() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        try await withDomain(provider, folders) { mount in
            let result = try await shell("""
                set -e
                cd '\(mount)/Work'
                cat report.txt > /dev/null
                printf 'revised figures\n' > .report.txt.swp
                mv .report.txt.swp report.txt
                cat report.txt; ls -a
                """)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "revised figures\n.\n..\nnotes.txt\nplan.md\nreport.txt\n")
            #expect(await eventually { provider.contents(at: "Work/report.txt") == "revised figures\n" && provider.contents(at: "Work/.report.txt.swp") == nil })
        }
    }

    @Test func anEditInPlaceIsSentAfterTheLastClose() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        try await withDomain(provider, folders) { mount in
            let result = try await shell("cd '\(mount)/Work' && printf 'appended\n' >> notes.txt && cat notes.txt")
            #expect(result.standardOutput == "remember\nappended\n", "\(result.standardError)")
            #expect(await eventually { provider.contents(at: "Work/notes.txt") == "remember\nappended\n" })
        }
    }

    @Test func rsyncOntoTheMountReachesTheProviderAndASecondFindsNothingToDo() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        let source = try TemporaryDirectory(prefix: "appex-rsync")
        try await withDomain(provider, folders) { mount in
            let result = try await shell("""
                set -e
                cd '\(source.url.path)'
                mkdir -p Trip && printf 'day one' > Trip/day1.txt && printf 'day two' > Trip/day2.txt
                touch -d '2024-05-01 10:00:00' Trip/day1.txt Trip/day2.txt
                rsync -rt ./ '\(mount)/Photos/'
                rsync -rt --itemize-changes ./ '\(mount)/Photos/' | grep -v '^\\.d' | wc -l
                """)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "0\n", "a second rsync finds nothing to copy")
            #expect(await eventually { provider.contents(at: "Photos/Trip/day1.txt") == "day one" && provider.contents(at: "Photos/Trip/day2.txt") == "day two" })
        }
    }

    @Test func changesMadeWhileTheProviderIsOutOfReachAreSentAfterARestart() async throws {
        let provider = ShelfProvider()
        let folders = DomainFolders()
        let problems = Reports()
        try await withDomain(provider, folders, problems: problems) { mount in
            _ = try await shell("ls '\(mount)/Work' > /dev/null")
            provider.unreachable.withLock { $0 = true }
            let result = try await shell("printf 'offline edit' > '\(mount)/Work/offline.txt' && rm '\(mount)/Work/plan.md'")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(await eventually { problems.all.contains { $0.contains("creating \"offline.txt\" failed, to be tried again") } })
        }
        #expect(provider.contents(at: "Work/offline.txt") == nil && provider.contents(at: "Work/plan.md") != nil)
        provider.unreachable.withLock { $0 = false }
        try await withDomain(provider, folders) { mount in
            #expect(await eventually { provider.contents(at: "Work/offline.txt") == "offline edit" && provider.contents(at: "Work/plan.md") == nil })
            let listing = try await shell("ls '\(mount)/Work'")
            #expect(listing.standardOutput == "notes.txt\noffline.txt\nreport.txt\n")
        }
    }
}
