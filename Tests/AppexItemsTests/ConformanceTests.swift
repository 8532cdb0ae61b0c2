@testable import AppexItems
import AppexCore
import Foundation
import Testing

@Suite struct ConformanceTests {
    @Test func anImageRequestFindsTheJPEG() async throws {
        let provider = NSItemProvider()
        provider.register(Data("text".utf8), as: "public.plain-text")
        provider.register(Data("jpeg".utf8), as: "public.jpeg")
        #expect(provider.hasItemConformingToTypeIdentifier("public.image"))
        #expect(provider.registeredContentTypes(conformingTo: .image) == [.jpeg])
        #expect(try await provider.loadDataRepresentation(for: .image) == Data("jpeg".utf8))
    }

    @Test func publicDataMatchesAnythingDataLike() async throws {
        let provider = NSItemProvider()
        provider.register(Data("pdf".utf8), as: "com.adobe.pdf")
        provider.register(Data("png".utf8), as: "public.png")
        #expect(provider.hasItemConformingToTypeIdentifier("public.data"))
        #expect(provider.hasItemConformingToTypeIdentifier("public.item"))
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.data") == Data("pdf".utf8))
    }

    @Test func theFirstConformingRegistrationWins() async throws {
        let provider = NSItemProvider()
        provider.register(Data("plain".utf8), as: "public.plain-text")
        provider.register(Data("png".utf8), as: "public.png")
        provider.register(Data("jpeg".utf8), as: "public.jpeg")
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.image") == Data("png".utf8))
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.jpeg") == Data("jpeg".utf8))
    }

    @Test func aMoreSpecificRequestDoesNotMatchAGeneralRegistration() async throws {
        let provider = NSItemProvider(object: Data("bytes".utf8))
        #expect(!provider.hasItemConformingToTypeIdentifier("public.jpeg"))
        let (data, error) = await provider.dataResult("public.jpeg")
        #expect(data == nil)
        #expect(providerError(error)?.code == .itemUnavailableError)
    }

    @Test func aNonConformingRequestNamesTheRegisteredTypes() async throws {
        let provider = NSItemProvider()
        provider.register(Data(), as: "public.jpeg")
        provider.register(Data(), as: "public.plain-text")
        let (_, error) = await provider.dataResult("com.adobe.pdf")
        let failure = try #require(providerError(error))
        #expect(failure.code == .itemUnavailableError)
        #expect(failure.typeIdentifier == "com.adobe.pdf")
        #expect(failure.registeredTypeIdentifiers == ["public.jpeg", "public.plain-text"])
        #expect(failure.description.contains("com.adobe.pdf"))
        #expect(failure.description.contains("public.jpeg, public.plain-text"))
        #expect(failure.description.contains("hasItemConformingToTypeIdentifier"))
    }

    @Test func anEmptyProviderSaysToRegisterSomething() async throws {
        let (_, error) = await NSItemProvider().dataResult("public.data")
        let failure = try #require(providerError(error))
        #expect(failure.code == .itemUnavailableError)
        #expect(failure.description.contains("no representations"))
    }

    @Test func malformedIdentifiersMatchOnlyThemselves() async throws {
        let provider = NSItemProvider()
        provider.register(Data("odd".utf8), as: "not a type!")
        #expect(provider.hasItemConformingToTypeIdentifier("NOT A TYPE!"))
        #expect(!provider.hasItemConformingToTypeIdentifier("public.data"))
        #expect(provider.registeredContentTypes.isEmpty)
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "not a type!") == Data("odd".utf8))
    }

    @Test func representationChecksHonourFileOptions() {
        let provider = NSItemProvider()
        provider.register(Data(), as: "public.jpeg")
        provider.register(file: URL(fileURLWithPath: "/nonexistent/a.pdf"), as: "com.adobe.pdf", fileOptions: .openInPlace)
        #expect(provider.hasRepresentationConforming(toTypeIdentifier: "public.image"))
        #expect(!provider.hasRepresentationConforming(toTypeIdentifier: "public.image", fileOptions: .openInPlace))
        #expect(provider.hasRepresentationConforming(toTypeIdentifier: "public.data", fileOptions: .openInPlace))
        #expect(!provider.hasRepresentationConforming(toTypeIdentifier: "public.audio"))
    }
}
