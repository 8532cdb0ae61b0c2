@testable import AppexCore
import Foundation
import Testing

@Suite struct SystemTypesLoadingTests {
    @Test func builtInTableLoadsFromTheResourceBundle() throws {
        let declarations = try UTTypeGraph.systemDeclarations()
        #expect(declarations.contains { $0.identifier == "public.item" })
        #expect(declarations.allSatisfy { $0.kind == .exported })
        // Identifiers are unique in the table.
        #expect(Set(declarations.map { $0.identifier.lowercased() }).count == declarations.count)
    }

    @Test func theCompiledTableIsThePlist() throws {
        let plist = try UTTypeGraph.systemDeclarations()
        #expect(UTTypeDeclaration.systemTable == plist,
                "SystemTypes.plist changed: run Support/generate-system-types.py to regenerate the compiled table")
        #expect(UTTypeGraph.system.declarations.count == plist.count)
    }

    @Test func missingFileIsAClearError() {
        #expect {
            try UTTypeGraph.makeSystem(systemTypesPath: "/nonexistent/SystemTypes.plist", sharedMIMEDirectory: nil)
        } throws: { error in
            guard let error = error as? UTTypeGraphLoadError else { return false }
            return error.code == .unreadable && error.description.contains("/nonexistent/SystemTypes.plist")
        }
    }

    @Test func malformedTableNamesTheKeyPath() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("appex-types-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: file) }
        try PropertyListValue.array([["UTTypeIdentifier": "com.example.ok"], ["UTTypeIdentifier": 3]]).xmlData().write(to: file)
        #expect {
            try UTTypeGraph.makeSystem(systemTypesPath: file.path, sharedMIMEDirectory: nil)
        } throws: { error in
            guard let error = error as? UTTypeGraphLoadError else { return false }
            return error.code == .malformed && error.description.contains("[1].UTTypeIdentifier")
        }
        try Data("not a plist".utf8).write(to: file)
        #expect(throws: UTTypeGraphLoadError.self) {
            try UTTypeGraph.makeSystem(systemTypesPath: file.path, sharedMIMEDirectory: nil)
        }
    }

    @Test func customTableBuildsAGraph() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("appex-types-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: file) }
        try PropertyListValue.array([
            ["UTTypeIdentifier": "public.item"],
            ["UTTypeIdentifier": "public.data", "UTTypeConformsTo": "public.item"],
        ]).xmlData().write(to: file)
        let graph = try UTTypeGraph.makeSystem(systemTypesPath: file.path, sharedMIMEDirectory: nil)
        #expect(graph.conforms("public.data", to: "public.item"))
        #expect(graph.declarations.count == 2)
    }
}


@Suite struct SystemTypesResourceTests {
    @Test func candidatesIncludeTheBundleBesideTheExecutable() {
        let candidates = SystemTypesResource.candidatePaths()
        #expect(candidates.contains { $0.hasSuffix("appex_AppexCore.resources/SystemTypes.plist") })
        #expect(candidates.contains(Bundle.main.bundleURL.appendingPathComponent("appex_AppexCore.resources/SystemTypes.plist").path))
    }

    @Test func aMissingBundleIsReportedNotTrapped() {
        #expect {
            try SystemTypesResource.locate(candidates: ["/nonexistent/a/SystemTypes.plist", "/nonexistent/b/SystemTypes.plist"])
        } throws: { error in
            guard let error = error as? UTTypeGraphLoadError else { return false }
            return error.code == .resourceMissing
                && error.description.contains("/nonexistent/a/SystemTypes.plist, /nonexistent/b/SystemTypes.plist")
                && error.description.contains("APPEX_SYSTEM_TYPES")
        }
    }
}
