@testable import AppexKit
import Foundation
import Testing

/// An extension knows which AppexKit sources it was built against, and one run with an
/// AppexKit built from other sources refuses to start, saying so (docs/zygote.md, "AppexKit,
/// shared").
@Suite struct AppexKitBuildTests {
    @Test func theDigestIsTheSourcesOne() {
        // The AppexKitSources plugin's: 128 bits of SHA-256, in hex, the same for the
        // extension's copy and AppexKit's own.
        #expect(AppexKitBuild.sources.count == 32)
        #expect(AppexKitBuild.sources.allSatisfy { $0.isHexDigit })
        #expect(AppexKitBuild.clientSources == AppexKitBuild.sources)
        #expect(AppexKitBuild.mismatch(builtAgainst: AppexKitBuild.clientSources) == nil)
    }

    @Test func anExtensionBuiltAgainstOtherSourcesIsRefusedSayingWhichAndWhatToDo() throws {
        let failure = try #require(AppexKitBuild.mismatch(builtAgainst: "0123456789abcdef0123456789abcdef"))
        #expect(failure.message.contains("sources 0123456789abcdef0123456789abcdef"))
        #expect(failure.message.contains("sources \(AppexKitBuild.sources)"))
        #expect(failure.recovery.contains("Build the extension again"))
    }
}
