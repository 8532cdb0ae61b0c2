import AppexRegistry
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// The user's enable/disable and order choices, their persistence across reinstalls, and the
/// extensions they pick in hosts' lists.
@Suite final class PreferenceTests {
    let test: TestHome
    let registry: Registry

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
        try await AssembledSamples.install(into: registry)
    }

    @Test func disablingIsKeptAcrossAReinstall() throws {
        try registry.setEnabled(false, extension: "com.example.notes.share")
        #expect(try registry.extension("com.example.notes.share")?.isEnabled == false)
        let newer = try SampleApps.assemble(into: test.scratch, settings: ["CURRENT_PROJECT_VERSION": "2"])[0]
        try registry.install(appAt: newer)
        #expect(try registry.extension("com.example.notes.share")?.isEnabled == false)
        #expect(try registry.extension("com.example.notes.uppercase")?.isEnabled == true)
        try registry.setEnabled(true, extension: "COM.EXAMPLE.NOTES.SHARE")
        #expect(try registry.extension("com.example.notes.share")?.isEnabled == true)
    }

    @Test func theUsersOrderIsKeptWithinAPoint() throws {
        let point = "com.apple.share-services"
        #expect(try registry.extensions(point: point).map(\.identifier) == ["com.example.notes.share", "com.example.photos.share"])
        try registry.setOrder(["com.example.photos.share"], point: point)
        #expect(try registry.extensions(point: point).map(\.identifier) == ["com.example.photos.share", "com.example.notes.share"])
        try registry.setOrder(["com.example.notes.share", "com.example.photos.share"], point: point)
        #expect(try registry.extensions(point: point).map(\.position) == [0, 1])
    }

    @Test func orderingAcrossPointsOrTwiceIsRefused() throws {
        let wrongPoint = #expect(throws: RegistryError.self) {
            try registry.setOrder(["com.example.notes.uppercase"], point: "com.apple.share-services")
        }
        #expect(wrongPoint?.message.contains("com.apple.ui-services") == true)
        #expect(throws: RegistryError.self) {
            try registry.setOrder(["com.example.notes.share", "com.example.notes.share"], point: "com.apple.share-services")
        }
    }

    @Test func enablingAnAppOrAnUnknownIdentifierSaysWhat() throws {
        let app = #expect(throws: RegistryError.self) { try registry.setEnabled(false, extension: "com.example.notes") }
        #expect(app?.message.contains("is an app") == true)
        let unknown = #expect(throws: RegistryError.self) { try registry.setEnabled(false, extension: "com.example.nope") }
        #expect(unknown?.code == .notInstalled)
    }
}

/// The extensions a user picks in a host's list are remembered, most recent first.
extension PreferenceTests {
    @Test func picksComeBackMostRecentFirstAmongTheGivenExtensionsOnly() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try registry.recordPick(of: "com.example.notes.uppercase", at: start)
        try registry.recordPick(of: "COM.EXAMPLE.TEXTTOOLS.WORDCOUNT", at: start + 10)
        try registry.recordPick(of: "com.example.notes.share", at: start + 20)
        let actions = ["com.example.notes.uppercase", "com.example.texttools.checksum", "com.example.texttools.wordcount"]
        #expect(try registry.recentlyPicked(among: actions) == ["com.example.texttools.wordcount", "com.example.notes.uppercase"])
        #expect(try registry.recentlyPicked(among: actions, limit: 1) == ["com.example.texttools.wordcount"])
        try registry.recordPick(of: "com.example.notes.uppercase", at: start + 30)
        #expect(try registry.recentlyPicked(among: actions).first == "com.example.notes.uppercase")
        #expect(try registry.recentlyPicked(among: []) == [])
    }

    @Test func aPickChangesNoCachedAnswerAndNeedsAnInstalledExtension() throws {
        let generation = try registry.generation()
        try registry.recordPick(of: "com.example.notes.share")
        #expect(try registry.generation() == generation)
        let error = #expect(throws: RegistryError.self) { try registry.recordPick(of: "com.example.nothing") }
        #expect(error?.code == .notInstalled)
    }
}
