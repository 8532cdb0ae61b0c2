import AppexCore
import AppexRegistry
import AppexTesting
import Foundation
import GRDB
import Testing

/// Which app opens a URL scheme two installed apps declare: the first installed, through its
/// upgrades, until the user chooses another; never the one that merely sorts first.
@Suite final class URLSchemeTests {
    let test: TestHome
    let registry: Registry

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
    }

    func app(_ identifier: String, declaring schemes: [String], version: String = "1") -> BundleBuilder {
        var app = BundleBuilder.app(identifier, version: version, in: test.scratch.appendingPathComponent(identifier))
        if !schemes.isEmpty {
            app.info["CFBundleURLTypes"] = .array([.dictionary(["CFBundleURLSchemes": .array(schemes.map { .string($0) })])])
        }
        return app
    }

    func holder(_ scheme: String) throws -> String? {
        try registry.app(openingScheme: scheme)?.identifier
    }

    /// A later app declaring the scheme doesn't take it, though it sorts first; upgrades keep
    /// it; the user's choice moves it, to an app that declares it only; and when the chosen
    /// app goes, so does the choice.
    @Test func aSchemeBelongsToTheFirstAppThatDeclaresItUntilTheUserChoosesAnother() throws {
        var first = app("com.example.zeta", declaring: ["mail", "zeta"])
        try registry.install(appAt: try first.write())
        var second = app("com.example.alpha", declaring: ["MAIL"])
        try registry.install(appAt: try second.write())

        #expect(try holder("mail") == "com.example.zeta")
        #expect(try holder("Mail") == "com.example.zeta", "schemes compare case-insensitively")
        #expect(try registry.urlSchemeHandlers() == [
            .init(scheme: "mail", appIdentifier: "com.example.zeta", isChosen: false, otherApps: ["com.example.alpha"]),
            .init(scheme: "zeta", appIdentifier: "com.example.zeta", isChosen: false, otherApps: []),
        ])
        second.info["CFBundleVersion"] = "2"
        try registry.install(appAt: try second.write())
        first.info["CFBundleVersion"] = "2"
        try registry.install(appAt: try first.write())
        #expect(try holder("mail") == "com.example.zeta", "upgrades take nothing and lose nothing")

        try registry.setHandler(ofScheme: "MAIL", to: "com.example.alpha")
        #expect(try holder("mail") == "com.example.alpha")
        #expect(try registry.urlSchemeHandlers().first == .init(scheme: "mail", appIdentifier: "com.example.alpha", isChosen: true, otherApps: ["com.example.zeta"]))
        second.info["CFBundleVersion"] = "3"
        try registry.install(appAt: try second.write())
        #expect(try holder("mail") == "com.example.alpha", "the choice outlasts an upgrade")

        try registry.install(appAt: try app("com.example.plain", declaring: []).write())
        let undeclared = #expect(throws: RegistryError.self) { try self.registry.setHandler(ofScheme: "mail", to: "com.example.plain") }
        #expect(undeclared?.code == .conflict)
        #expect(undeclared?.message == "com.example.plain doesn't declare the URL scheme mail in its CFBundleURLTypes, so it can't open mail: URLs; "
                + "only com.example.alpha, com.example.zeta can", "\(String(describing: undeclared))")
        let missing = #expect(throws: RegistryError.self) { try self.registry.setHandler(ofScheme: "mail", to: "com.example.gone") }
        #expect(missing?.code == .notInstalled)
        #expect(try holder("mail") == "com.example.alpha", "a refused choice changes nothing")

        try registry.uninstall("com.example.alpha")
        #expect(try registry.urlSchemeHandlers().first == .init(scheme: "mail", appIdentifier: "com.example.zeta", isChosen: false, otherApps: []))
        // An upgrade that no longer declares a scheme lets it go.
        first = app("com.example.zeta", declaring: ["zeta"], version: "3")
        try registry.install(appAt: try first.write())
        #expect(try holder("mail") == nil)
        #expect(try registry.urlSchemeHandlers().map(\.scheme) == ["zeta"])
    }

    /// When the app holding a scheme goes, the app installed earliest among the others that
    /// declare it takes it, whatever their identifiers.
    @Test func whenTheHolderGoesTheAppInstalledEarliestAmongTheOthersTakesTheScheme() throws {
        for identifier in ["com.example.holder", "com.example.next", "com.example.after"] {
            try registry.install(appAt: try app(identifier, declaring: ["shared"]).write())
        }
        #expect(try holder("shared") == "com.example.holder")
        try registry.uninstall("com.example.holder")
        #expect(try holder("shared") == "com.example.next")
        try registry.uninstall("com.example.next")
        #expect(try holder("shared") == "com.example.after")
        try registry.uninstall("com.example.after")
        #expect(try holder("shared") == nil)
        #expect(try registry.urlSchemeHandlers().isEmpty)
    }

    /// A registry made before schemes were recorded learns them as it opens, in install order.
    @Test func aRegistryFromBeforeSchemesWereRecordedLearnsThemInInstallOrder() throws {
        try registry.install(appAt: try app("com.example.older", declaring: ["old"]).write())
        try registry.install(appAt: try app("com.example.newer", declaring: ["old", "new"]).write())
        let database = try DatabaseQueue(path: test.home.registryURL.path)
        try database.write { db in
            try db.execute(sql: "DROP TABLE urlSchemeHandler; DROP TABLE urlScheme")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v8: URL schemes'")
        }
        try database.close()

        let reopened = try Registry(home: test.home)
        #expect(try reopened.urlSchemeHandlers() == [
            .init(scheme: "new", appIdentifier: "com.example.newer", isChosen: false, otherApps: []),
            .init(scheme: "old", appIdentifier: "com.example.older", isChosen: false, otherApps: ["com.example.newer"]),
        ])
    }
}
