import AppexCore
import AppexRegistry
import AppexTesting
import Foundation
import Testing

/// The type declarations appexd gives each extension at launch: the installed apps', the
/// preferred app's first, kept between launches while the registry is unchanged and read
/// again after an install or an uninstall.
@Suite final class TypeDeclarationsRegistryTests {
    let test: TestHome
    let registry: Registry

    init() throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
    }

    func install(_ app: String, exporting type: String) throws {
        var bundle = BundleBuilder.app(app, name: app, in: test.scratch.appendingPathComponent(app))
        bundle.info["UTExportedTypeDeclarations"] = .array([.dictionary([
            "UTTypeIdentifier": .string(type), "UTTypeConformsTo": .array(["public.data"]),
        ])])
        try registry.install(appAt: try bundle.write())
    }

    /// The identifiers `json` declares, in its order.
    func identifiers(_ json: String?) throws -> [String] {
        let value = try JSONDecoder().decode(PropertyListValue.self, from: Data(try #require(json).utf8))
        guard case .dictionary(let lists) = value, case .array(let exported)? = lists["UTExportedTypeDeclarations"] else { return [] }
        return exported.compactMap { if case .dictionary(let entry) = $0, case .string(let id)? = entry["UTTypeIdentifier"] { id } else { nil } }
    }

    @Test func thePreferredAppsTypesComeFirstAndChangesAreSeenAtOnce() throws {
        #expect(try registry.typeDeclarationsJSON(preferring: "com.example.b", limit: 65_536) == nil, "no app declares a type")
        try install("com.example.a", exporting: "com.example.a-doc")
        try install("com.example.b", exporting: "com.example.b-doc")
        #expect(try identifiers(registry.typeDeclarationsJSON(preferring: "com.example.b", limit: 65_536)) == ["com.example.b-doc", "com.example.a-doc"])
        #expect(try identifiers(registry.typeDeclarationsJSON(preferring: "com.example.a", limit: 65_536)) == ["com.example.a-doc", "com.example.b-doc"])
        // Asked again unchanged, then after each change: the answer follows the registry.
        #expect(try identifiers(registry.typeDeclarationsJSON(preferring: "com.example.b", limit: 65_536)) == ["com.example.b-doc", "com.example.a-doc"])
        _ = try registry.uninstall("com.example.a")
        #expect(try identifiers(registry.typeDeclarationsJSON(preferring: "com.example.b", limit: 65_536)) == ["com.example.b-doc"])
        // Another process's registry on the same home changes it too.
        try Registry(home: test.home).uninstall("com.example.b")
        #expect(try registry.typeDeclarationsJSON(preferring: "com.example.b", limit: 65_536) == nil)
    }
}
