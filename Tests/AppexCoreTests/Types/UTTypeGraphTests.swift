import AppexCore
import Testing

@Suite struct UTTypeGraphTests {
    let system = UTTypeGraph.system

    @Test func systemTableLoads() {
        #expect(UTTypeGraph.systemLoadError == nil)
        #expect(system.isDeclared("public.item"))
        #expect(system.isDeclared("public.jpeg"))
        #expect(system.declarations.count > 150)
    }

    @Test func everySystemParentIsDeclared() {
        for declaration in system.declarations {
            for parent in declaration.conformsTo {
                #expect(system.isDeclared(parent), "\(declaration.identifier) names undeclared parent \(parent)")
            }
        }
    }

    @Test func conformanceIsTransitive() {
        #expect(system.conforms("public.jpeg", to: "public.image"))
        #expect(system.conforms("public.jpeg", to: "public.data"))
        #expect(system.conforms("public.jpeg", to: "public.content"))
        #expect(system.conforms("public.jpeg", to: "public.item"))
        #expect(system.conforms("public.python-script", to: "public.plain-text"))
        #expect(system.conforms("public.python-script", to: "public.item"))
        #expect(system.conforms("public.heic", to: "public.image"))
        #expect(system.conforms("com.adobe.raw-image", to: "public.camera-raw-image"))
    }

    @Test func conformanceIsReflexiveAndNotSymmetric() {
        #expect(system.conforms("public.image", to: "public.image"))
        #expect(!system.conforms("public.image", to: "public.jpeg"))
        #expect(!system.conforms("public.jpeg", to: "public.text"))
        #expect(!system.conforms("public.content", to: "public.item"))
    }

    @Test func multipleParents() {
        // public.xhtml conforms to both public.html and public.xml.
        #expect(system.conforms("public.xhtml", to: "public.html"))
        #expect(system.conforms("public.xhtml", to: "public.xml"))
        // public.mpeg-4-audio is both a movie container and audio.
        #expect(system.conforms("public.mpeg-4-audio", to: "public.mpeg"))
        #expect(system.conforms("public.mpeg-4-audio", to: "public.movie"))
        // JavaScript is source code and executable, as Apple documents it.
        #expect(system.conforms("com.netscape.javascript-source", to: "public.executable"))
        #expect(system.conforms("com.netscape.javascript-source", to: "public.plain-text"))
        #expect(system.conforms("public.mpeg-4-audio", to: "public.audio"))
        #expect(system.conforms("com.apple.application-bundle", to: "com.apple.bundle"))
        #expect(system.conforms("com.apple.application-bundle", to: "public.executable"))
        #expect(system.conforms("org.openxmlformats.wordprocessingml.document", to: "public.archive"))
        #expect(system.conforms("org.openxmlformats.wordprocessingml.document", to: "public.composite-content"))
        #expect(system.conforms("com.apple.xml-property-list", to: "public.text"))
        #expect(system.conforms("com.apple.xml-property-list", to: "com.apple.property-list"))
    }

    @Test func identifiersCompareCaseInsensitively() {
        #expect(system.conforms("PUBLIC.JPEG", to: "public.Image"))
        #expect(system.isDeclared("Public.Png"))
        #expect(system.declaration(for: "COM.ADOBE.PDF")?.identifier == "com.adobe.pdf")
        #expect(system.conforms("com.example.Unknown", to: "COM.EXAMPLE.unknown"))
    }

    @Test func unknownTypesConformOnlyToThemselves() {
        #expect(!system.conforms("com.example.unknown", to: "public.item"))
        #expect(!system.conforms("public.jpeg", to: "com.example.unknown"))
        #expect(!system.isDeclared("com.example.unknown"))
    }

    @Test func supertypesAreNearestFirst() {
        let supertypes = system.supertypes(of: "public.jpeg")
        #expect(supertypes.first == "public.image")
        #expect(Set(supertypes) == ["public.image", "public.data", "public.content", "public.item"])
        #expect(system.supertypes(of: "public.item").isEmpty)
        #expect(system.supertypes(of: "com.example.unknown").isEmpty)
    }

    @Test func parentsNobodyDeclaresStillConform() {
        let graph = UTTypeGraph(declarations: [
            UTTypeDeclaration(identifier: "com.example.child", conformsTo: ["com.example.undeclared"])
        ])
        #expect(graph.conforms("com.example.child", to: "com.example.undeclared"))
        #expect(!graph.isDeclared("com.example.undeclared"))
        #expect(graph.origin(of: "com.example.undeclared") == .undeclared)
        #expect(graph.declaration(for: "com.example.undeclared") == nil)
    }

    @Test func cyclesTerminate() {
        let graph = UTTypeGraph(declarations: [
            UTTypeDeclaration(identifier: "com.example.a", conformsTo: ["com.example.b"]),
            UTTypeDeclaration(identifier: "com.example.b", conformsTo: ["com.example.a", "com.example.c"]),
            UTTypeDeclaration(identifier: "com.example.c", conformsTo: ["com.example.c"]),
        ])
        #expect(graph.conforms("com.example.a", to: "com.example.b"))
        #expect(graph.conforms("com.example.b", to: "com.example.a"))
        #expect(graph.conforms("com.example.a", to: "com.example.c"))
        #expect(!graph.conforms("com.example.c", to: "com.example.a"))
        #expect(Set(graph.supertypes(of: "com.example.a")) == ["com.example.b", "com.example.c"])
    }

    @Test func laterDeclarationWins() {
        let graph = UTTypeGraph(declarations: [
            UTTypeDeclaration(identifier: "com.example.a", conformsTo: ["public.data"]),
            UTTypeDeclaration(identifier: "COM.EXAMPLE.A", conformsTo: ["public.text"]),
        ])
        #expect(graph.conforms("com.example.a", to: "public.text"))
        #expect(!graph.conforms("com.example.a", to: "public.data"))
    }

    @Test func longChainsAndManyDeclarations() {
        // A chain longer than the precomputed ancestor limit still answers correctly.
        let count = 1000
        var declarations = (1..<count).map {
            UTTypeDeclaration(identifier: "com.example.t\($0)", conformsTo: ["com.example.t\($0 - 1)"])
        }
        declarations.append(UTTypeDeclaration(identifier: "com.example.t0"))
        // A wide fan of siblings.
        declarations += (0..<20_000).map {
            UTTypeDeclaration(identifier: "com.example.leaf\($0)", conformsTo: ["com.example.t10"])
        }
        let graph = UTTypeGraph(declarations: declarations)
        #expect(graph.conforms("com.example.t\(count - 1)", to: "com.example.t0"))
        #expect(!graph.conforms("com.example.t0", to: "com.example.t\(count - 1)"))
        #expect(graph.conforms("com.example.leaf19999", to: "com.example.t0"))
        #expect(!graph.conforms("com.example.leaf19999", to: "com.example.t11"))
    }
}

@Suite struct CaseFoldingTests {
    let graph = UTTypeGraph(declarations: [
        UTTypeDeclaration(identifier: "com.example.ünïcode-type", conformsTo: ["public.data"]),
        UTTypeDeclaration(identifier: "com.example.at@sign_and[bracket]", conformsTo: ["public.data"]),
    ])

    @Test func onlyASCIILettersFold() throws {
        #expect(graph.isDeclared("COM.EXAMPLE.ÜNÏCODE-TYPE") == false)  // non-ASCII compares exactly
        #expect(graph.isDeclared("COM.EXAMPLE.ünïcode-TYPE"))
        #expect(graph.isDeclared("com.example.AT@SIGN_AND[BRACKET]"))
        // '@' and '`', '[' and '{' differ only in the bit that case folding sets.
        #expect(!graph.isDeclared("com.example.at`sign_and[bracket]"))
        #expect(!graph.isDeclared("com.example.at@sign_and{bracket]"))
        #expect(!graph.isDeclared("com.example.at@sign_and[bracket}"))
        let type = try #require(UTType("com.example.ÜNÏCODE-type", graph: graph))
        #expect(!type.isDeclared)
        #expect(UTType("Com.Example.At@Sign_And[Bracket]", graph: graph) == nil)  // not identifier syntax
    }
}
