import AppexCore
import AppexRegistry
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// A registry that is used and dropped gives back every file descriptor it opened.
@Suite(.serialized) final class ResourceLeakTests {
    /// One full life of a registry: open, install, query, uninstall, drop.
    static func cycle(_ apps: [URL], home: AppexHome) throws {
        let registry = try Registry(home: home)
        for app in apps { try registry.install(appAt: app) }
        _ = try registry.query(point: "com.apple.share-services", items: .init([.init(attributedContentText: "x")]))
        try registry.uninstall("com.example.notes")
        try registry.uninstall("com.example.photos")
    }

    @Test func aRegistryClosesEverythingItOpened() async throws {
        let test = try TestHome()
        let apps = try await AssembledSamples.apps()
        let home = test.home
        for _ in 0..<3 {
            try await onThread { try Self.cycle(apps, home: home) }
            #expect(ResourceCounts.openDescriptors(under: test.home.dataDirectory) == 0)
        }
    }
}
