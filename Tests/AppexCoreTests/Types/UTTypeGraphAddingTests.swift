import AppexCore
import Testing

@Suite struct UTTypeGraphAddingTests {
    let base = UTTypeGraph.system

    @Test func appTypesJoinTheGraph() throws {
        let graph = base.adding([
            UTTypeDeclaration(
                identifier: "com.example.notes.note", conformsTo: ["public.plain-text"],
                filenameExtensions: ["note"], mimeTypes: ["application/x-example-note"], description: "Note"),
            UTTypeDeclaration(identifier: "com.example.notes.checklist", conformsTo: ["com.example.notes.note", "public.json"]),
        ])
        #expect(graph.conforms("com.example.notes.checklist", to: "public.text"))
        #expect(graph.conforms("com.example.notes.checklist", to: "public.json"))
        #expect(graph.origin(of: "com.example.notes.note") == .exported)
        #expect(graph.issues.isEmpty)
        let note = try #require(graph.type(forFilenameExtension: "note"))
        #expect(note.identifier == "com.example.notes.note")
        #expect(note.conforms(to: .plainText))
        #expect(note.isDeclared)
        #expect(!note.isSystemDeclared)
        #expect(note.localizedDescription == "Note")
        #expect(graph.type(forMIMEType: "application/x-example-note") == note)
        #expect(UTType(mimeType: "application/x-example-note", conformingTo: try #require(UTType("public.text", graph: graph))) == note)
        // The graph it was added to is unchanged.
        #expect(!base.isDeclared("com.example.notes.note"))
        #expect(base.type(forFilenameExtension: "note")?.isDynamic == true)
    }

    @Test func systemTypesCannotBeRedefined() {
        let graph = base.adding([
            UTTypeDeclaration(identifier: "public.jpeg", conformsTo: ["public.text"], kind: .exported),
            UTTypeDeclaration(identifier: "COM.ADOBE.PDF", conformsTo: ["public.image"], kind: .imported),
        ])
        #expect(!graph.conforms("public.jpeg", to: "public.text"))
        #expect(graph.conforms("public.jpeg", to: "public.image"))
        #expect(!graph.conforms("com.adobe.pdf", to: "public.image"))
        #expect(graph.origin(of: "public.jpeg") == .system)
        #expect(graph.issues.map(\.code) == [.redefinesSystemType, .redefinesSystemType])
        #expect(graph.issues[0].description.contains("public.jpeg"))
    }

    @Test func reservedNamespaces() {
        let graph = base.adding([
            UTTypeDeclaration(identifier: "public.brand-new", conformsTo: ["public.data"], kind: .exported),
            UTTypeDeclaration(identifier: "public.newer-system-type", conformsTo: ["public.image"], kind: .imported),
            UTTypeDeclaration(identifier: "dyn.ah62d4rv4ge80", kind: .imported),
        ])
        #expect(!graph.isDeclared("public.brand-new"))
        #expect(graph.isDeclared("public.newer-system-type"))
        #expect(graph.conforms("public.newer-system-type", to: "public.image"))
        #expect(graph.issues.map(\.code) == [.reservedIdentifier, .reservedIdentifier])
    }

    @Test func exportedWinsOverImported() {
        let imported = UTTypeDeclaration(identifier: "com.vendor.doc", conformsTo: ["public.data"], kind: .imported)
        let exported = UTTypeDeclaration(identifier: "com.vendor.doc", conformsTo: ["public.composite-content", "public.data"], kind: .exported)
        let secondExport = UTTypeDeclaration(identifier: "com.vendor.doc", conformsTo: ["public.image"], kind: .exported)
        let laterImport = UTTypeDeclaration(identifier: "com.vendor.doc", conformsTo: ["public.audio"], kind: .imported)

        let graph = base.adding([imported, exported, secondExport, laterImport])
        #expect(graph.origin(of: "com.vendor.doc") == .exported)
        #expect(graph.conforms("com.vendor.doc", to: "public.content"))
        #expect(!graph.conforms("com.vendor.doc", to: "public.image"))
        #expect(!graph.conforms("com.vendor.doc", to: "public.audio"))
        #expect(graph.issues.map(\.code) == [.overridden, .overridden, .overridden])
        #expect(graph.issues[0].declaration == imported)

        // The same holds when the importer and the exporter arrive in separate calls.
        let stepwise = base.adding([imported]).adding([exported])
        #expect(stepwise.conforms("com.vendor.doc", to: "public.content"))
        let reversed = base.adding([exported]).adding([imported])
        #expect(reversed.conforms("com.vendor.doc", to: "public.content"))
    }

    @Test func appCyclesAreSafe() {
        let graph = base.adding([
            UTTypeDeclaration(identifier: "com.example.a", conformsTo: ["com.example.b", "public.data"]),
            UTTypeDeclaration(identifier: "com.example.b", conformsTo: ["com.example.a"]),
        ])
        #expect(graph.conforms("com.example.b", to: "public.item"))
        #expect(graph.conforms("com.example.a", to: "com.example.b"))
        #expect(!graph.conforms("public.data", to: "com.example.a"))
    }

    @Test func manyAppDeclarations() {
        let declarations = (0..<10_000).map {
            UTTypeDeclaration(identifier: "com.example.app\($0).doc", conformsTo: ["public.json"], filenameExtensions: ["doc\($0)"])
        }
        let graph = base.adding(declarations)
        #expect(graph.conforms("com.example.app9999.doc", to: "public.text"))
        #expect(graph.type(forFilenameExtension: "doc4242")?.identifier == "com.example.app4242.doc")
        #expect(graph.declarations.count == base.declarations.count + 10_000)
    }
}
