import AppexCore
import Foundation
import Testing

@Suite struct UTTypeDeclarationParsingTests {
    @Test func parsesApplesShape() throws {
        let value: PropertyListValue = [
            [
                "UTTypeIdentifier": "com.example.notes.note",
                "UTTypeConformsTo": ["public.data", "public.content"],
                "UTTypeDescription": "Note",
                "UTTypeTagSpecification": [
                    "public.filename-extension": ["note", "notes"],
                    "public.mime-type": "application/x-example-note",
                ],
                "UTTypeReferenceURL": "https://example.com",
                "UTTypeIconFiles": ["icon.png"],
            ],
            [
                "UTTypeIdentifier": "com.example.notes.stack",
                "UTTypeConformsTo": "com.example.notes.note",
            ],
        ]
        let declarations = try UTTypeDeclaration.declarations(from: value, keyPath: "UTExportedTypeDeclarations")
        #expect(declarations.count == 2)
        #expect(declarations[0] == UTTypeDeclaration(
            identifier: "com.example.notes.note",
            conformsTo: ["public.data", "public.content"],
            filenameExtensions: ["note", "notes"],
            mimeTypes: ["application/x-example-note"],
            description: "Note",
            referenceURL: "https://example.com",
            kind: .exported))
        #expect(declarations[1].conformsTo == ["com.example.notes.note"])
    }

    /// `UTTypeReferenceURL` and `UTTypeVersion` reach `UTType.referenceURL` and `version`,
    /// and survive the round trip through the registry's stored form.
    @Test func referenceURLAndVersionAreReadKeptAndReachTheType() throws {
        let value: PropertyListValue = [
            ["UTTypeIdentifier": "org.example.score", "UTTypeReferenceURL": "http://www.example.org/score", "UTTypeVersion": 3],
            ["UTTypeIdentifier": "org.example.part", "UTTypeVersion": "2"],
        ]
        let declarations = try UTTypeDeclaration.declarations(from: value, keyPath: "UTExportedTypeDeclarations")
        #expect(declarations.map(\.version) == [3, 2])
        #expect(declarations.map(\.referenceURL) == ["http://www.example.org/score", nil])
        let stored = try UTTypeDeclaration.declarations(from: .array(declarations.map(\.propertyListValue)), keyPath: "stored")
        #expect(stored == declarations)
        let graph = UTTypeGraph.system.adding(declarations)
        let score = try #require(UTType("org.example.score", graph: graph))
        #expect(score.referenceURL?.host == "www.example.org")
        #expect(score.version == 3)
        #expect(UTType("org.example.part", graph: graph)?.referenceURL == nil)
        #expect(UTType("public.jpeg", graph: graph)?.version == nil)
    }

    @Test func aReferenceURLOrVersionOfTheWrongKindIsAnErrorAtItsKeyPath() {
        let value: PropertyListValue = [
            ["UTTypeIdentifier": "org.example.a", "UTTypeReferenceURL": 7, "UTTypeVersion": "two"],
            ["UTTypeIdentifier": "org.example.b", "UTTypeReferenceURL": .string("http://example.org/" + String(repeating: "x", count: 3000))],
        ]
        let result = UTTypeDeclaration.parse(value, keyPath: "UTExportedTypeDeclarations")
        #expect(result.declarations.map(\.identifier) == ["org.example.a", "org.example.b"])
        #expect(result.declarations.allSatisfy { $0.referenceURL == nil && $0.version == nil })
        #expect(result.errors.map(\.keyPath) == [
            "UTExportedTypeDeclarations[0].UTTypeReferenceURL", "UTExportedTypeDeclarations[0].UTTypeVersion",
            "UTExportedTypeDeclarations[1].UTTypeReferenceURL",
        ])
        #expect(result.errors[1].description.contains("\"two\""))
        #expect(result.errors[2].description.contains("2048"))
    }

    @Test func kindFollowsTheKeyPath() throws {
        let value: PropertyListValue = [["UTTypeIdentifier": "com.other.thing"]]
        let imported = try UTTypeDeclaration.declarations(from: value, keyPath: "NSExtension.UTImportedTypeDeclarations")
        #expect(imported[0].kind == .imported)
        let info: PropertyListValue = [
            "UTExportedTypeDeclarations": [["UTTypeIdentifier": "com.example.mine"]],
            "UTImportedTypeDeclarations": [["UTTypeIdentifier": "com.other.theirs"]],
        ]
        let both = try UTTypeDeclaration.declarations(fromInfoPlist: info)
        #expect(both.map(\.kind) == [.exported, .imported])
    }

    @Test func nonStringIdentifierNamesItsKeyPath() {
        let value: PropertyListValue = [
            ["UTTypeIdentifier": "com.example.good"],
            ["UTTypeIdentifier": "com.example.fine"],
            ["UTTypeIdentifier": 42],
        ]
        #expect {
            try UTTypeDeclaration.declarations(from: value, keyPath: "UTExportedTypeDeclarations")
        } throws: { error in
            guard let error = error as? UTTypeDeclarationError else { return false }
            return error.code == .wrongKind && error.keyPath == "UTExportedTypeDeclarations[2].UTTypeIdentifier"
                && error.description.contains("integer")
        }
    }

    @Test func lenientParseListsEveryProblem() {
        let value: PropertyListValue = [
            ["UTTypeDescription": "no identifier"],
            ["UTTypeIdentifier": "has space"],
            "not a dictionary",
            [
                "UTTypeIdentifier": "com.example.ok",
                "UTTypeConformsTo": ["public.data", 7, "bad id!"],
                "UTTypeDescription": true,
                "UTTypeTagSpecification": [
                    "public.filename-extension": [".jpg", "ok"],
                    "public.mime-type": ["nonsense", "image/x-ok"],
                ],
            ],
            ["UTTypeIdentifier": "com.example.tags", "UTTypeTagSpecification": "jpg"],
        ]
        let result = UTTypeDeclaration.parse(value, keyPath: "UTExportedTypeDeclarations")
        #expect(result.declarations.map(\.identifier) == ["com.example.ok", "com.example.tags"])
        #expect(result.declarations[0].conformsTo == ["public.data"])
        #expect(result.declarations[0].filenameExtensions == ["ok"])
        #expect(result.declarations[0].mimeTypes == ["image/x-ok"])
        let paths = result.errors.map(\.keyPath)
        #expect(paths == [
            "UTExportedTypeDeclarations[0].UTTypeIdentifier",
            "UTExportedTypeDeclarations[1].UTTypeIdentifier",
            "UTExportedTypeDeclarations[2]",
            "UTExportedTypeDeclarations[3].UTTypeConformsTo[1]",
            "UTExportedTypeDeclarations[3].UTTypeConformsTo[2]",
            "UTExportedTypeDeclarations[3].UTTypeDescription",
            "UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.filename-extension[0]",
            "UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.mime-type[0]",
            "UTExportedTypeDeclarations[4].UTTypeTagSpecification",
        ])
        #expect(result.errors.map(\.code) == [
            .missingKey, .invalidValue, .wrongKind, .wrongKind, .invalidValue, .wrongKind, .invalidValue, .invalidValue, .wrongKind,
        ])
    }

    @Test func topLevelMustBeAnArray() {
        let result = UTTypeDeclaration.parse(["UTTypeIdentifier": "com.example.a"], keyPath: "UTExportedTypeDeclarations")
        #expect(result.declarations.isEmpty)
        #expect(result.errors.first?.keyPath == "UTExportedTypeDeclarations")
        #expect(result.errors.first?.code == .wrongKind)
    }

    @Test func tooManyDeclarationsAreCapped() {
        let entries = (0...UTTypeDeclaration.maximumCount).map {
            PropertyListValue.dictionary(["UTTypeIdentifier": .string("com.example.t\($0)")])
        }
        let result = UTTypeDeclaration.parse(.array(entries), keyPath: "UTExportedTypeDeclarations")
        #expect(result.declarations.count == UTTypeDeclaration.maximumCount)
        #expect(result.errors.map(\.code) == [.tooMany])
    }

    @Test func identifierSyntax() {
        #expect(UTTypeDeclaration.isValidIdentifier("com.example.my-type_2"))
        #expect(!UTTypeDeclaration.isValidIdentifier(""))
        #expect(!UTTypeDeclaration.isValidIdentifier("com..example"))
        #expect(!UTTypeDeclaration.isValidIdentifier(".com.example"))
        #expect(!UTTypeDeclaration.isValidIdentifier("com.example."))
        #expect(!UTTypeDeclaration.isValidIdentifier("com/example"))
        #expect(!UTTypeDeclaration.isValidIdentifier(String(repeating: "a", count: 300)))
    }
}
