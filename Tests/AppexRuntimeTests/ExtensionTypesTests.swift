@testable import AppexCore
import AppexHost
import AppexItems
import AppexTesting
import Foundation
import Testing

/// An extension's `UTType` knows the types installed apps declare, its own app's first, as
/// an extension's does on Apple's systems: appexd gives them at launch
/// (`APPEX_TYPE_DECLARATIONS`), and `UTTypeGraph.process` adds them to the system's. Before,
/// a type the containing app exported was undeclared in its own extension.
@Suite(.serialized, .timeLimit(.minutes(3))) final class ExtensionTypesTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
    }

    static func declaration(_ identifier: String, conformingTo parent: String, extension: String) -> PropertyListValue {
        .dictionary([
            "UTTypeIdentifier": .string(identifier),
            "UTTypeConformsTo": .array([.string(parent)]),
            "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string(`extension`)])]),
        ])
    }

    @Test func theContainingAppsTypesAndAnotherAppsAreDeclaredInTheExtension() async throws {
        try await world.startDaemon()
        var other = BundleBuilder.app("com.example.othertypes", name: "Other Types", in: world.test.scratch.appendingPathComponent("other-types"))
        other.info["UTExportedTypeDeclarations"] = .array([Self.declaration("com.example.other-note", conformingTo: "public.plain-text", extension: "onote")])
        try await world.install(other)
        try await world.install([FaultWorld.Plugin(fault: "attempts")],
                                appTypes: [Self.declaration("com.example.faults.note", conformingTo: "public.json", extension: "fnote")])
        let attempts = try await world.extension("attempts")
        let outcome = try await attempts.outcome([textItem("type com.example.faults.note\ntype com.example.other-note\nextension fnote\ntype com.example.nobody\ntype public.jpeg")])
        let lines = outcome.items?.first?.attributedContentText?.string.split(separator: "\n").map(String.init)
        #expect(lines == [
            "declared, data, text, .fnote",
            "declared, data, text, .onote",
            "com.example.faults.note",
            "undeclared",
            "declared, data, not text, .jpeg",
        ], "\(outcome)")
    }

    @Test func declarationsThatCantBeReadLeaveTheSystemsTypes() {
        #expect(UTTypeGraph.declarations(fromEnvironmentValue: "not a property list").isEmpty)
        let declared = UTTypeGraph.declarations(fromEnvironmentValue: """
            {"UTImportedTypeDeclarations": [{"UTTypeIdentifier": "com.example.imported", "UTTypeConformsTo": ["public.data"]}]}
            """)
        #expect(declared.map(\.identifier) == ["com.example.imported"] && declared.first?.kind == .imported)
    }
}
