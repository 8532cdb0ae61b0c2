import AppexCore
import Testing

@Suite struct DynamicTypeTests {
    let bare = UTTypeGraph.system.adding([])  // same table, and the same shared-mime-info
    let withoutMIMEInfo = UTTypeGraph(declarations: UTTypeGraph.system.declarations)

    @Test func unknownExtensionMakesADynamicType() throws {
        let type = try #require(withoutMIMEInfo.type(forFilenameExtension: "zzqq"))
        #expect(type.isDynamic)
        #expect(type.identifier.hasPrefix("dyn.a"))
        #expect(!type.isDeclared)
        #expect(type.preferredFilenameExtension == "zzqq")
        #expect(type.preferredMIMEType == nil)
        #expect(type.conforms(to: UTType.data))
        #expect(type.conforms(to: UTType.item))
        #expect(!type.conforms(to: UTType.image))
        #expect(type.supertypes.contains(.data))
        #expect(type.localizedDescription == nil)
    }

    @Test func dynamicIdentifiersAreDeterministicAndRoundTrip() throws {
        let first = try #require(withoutMIMEInfo.type(forMIMEType: "application/x-zzqq"))
        let second = try #require(withoutMIMEInfo.type(forMIMEType: "application/x-zzqq"))
        #expect(first.identifier == second.identifier)
        #expect(first == second)
        // The identifier alone carries the tag and the conformance.
        let decoded = try #require(UTType(first.identifier, graph: withoutMIMEInfo))
        #expect(decoded.isDynamic)
        #expect(decoded.preferredMIMEType == "application/x-zzqq")
        #expect(decoded.conforms(to: UTType.data))
        #expect(withoutMIMEInfo.conforms(first.identifier, to: "public.item"))
        #expect(withoutMIMEInfo.supertypes(of: first.identifier).contains("public.data"))
        // Case doesn't matter, as for every identifier.
        let upper = try #require(UTType(first.identifier.uppercased(), graph: withoutMIMEInfo))
        #expect(upper == first)
        #expect(upper.preferredMIMEType == "application/x-zzqq")
    }

    @Test func differentTagsGiveDifferentIdentifiers() throws {
        let a = try #require(withoutMIMEInfo.type(forFilenameExtension: "zzqa"))
        let b = try #require(withoutMIMEInfo.type(forFilenameExtension: "zzqb"))
        let mime = try #require(withoutMIMEInfo.type(forMIMEType: "application/zzqa"))
        #expect(a != b)
        #expect(a != mime)
    }

    @Test func requestedSupertypeIsEncoded() throws {
        let type = try #require(withoutMIMEInfo.type(forFilenameExtension: "zzqq", conformingTo: "public.image"))
        #expect(type.isDynamic)
        #expect(type.conforms(to: UTType.image))
        let decoded = try #require(UTType(type.identifier, graph: withoutMIMEInfo))
        #expect(decoded.conforms(to: UTType.image))
        #expect(decoded.conforms(to: UTType.content))
    }

    @Test func oddCharactersSurviveTheEncoding() throws {
        for tag in ["a;b=c%d", "ünï", "x y", "tar.gz"] {
            let type = try #require(withoutMIMEInfo.type(forFilenameExtension: tag))
            let decoded = try #require(UTType(type.identifier, graph: withoutMIMEInfo))
            #expect(decoded.preferredFilenameExtension == tag.lowercased())
            #expect(decoded.identifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") })
        }
    }

    @Test func malformedDynamicIdentifiersAreInert() throws {
        for identifier in ["dyn.a", "dyn.a1", "dyn.abcdef", "dyn.zzz"] {
            let type = try #require(UTType(identifier, graph: withoutMIMEInfo))
            #expect(type.isDynamic)
            #expect(!type.conforms(to: UTType.data))
            #expect(type.tags.isEmpty)
            #expect(!withoutMIMEInfo.conforms(identifier, to: "public.data"))
        }
    }

    @Test func overlongTagsGetNoType() {
        #expect(withoutMIMEInfo.type(forFilenameExtension: String(repeating: "x", count: 256)) == nil)
    }
}
