@testable import AppexItems
import AppexCore
import Foundation
import Testing

@Suite struct CoercionTests {
    @Test func dataFromAFileRepresentationReadsTheFile() async throws {
        try await withTestFolder { folder in
            let provider = NSItemProvider()
            provider.register(file: try folder.write("%PDF-1.7", to: "doc.pdf"), as: "com.adobe.pdf")
            #expect(try await provider.loadDataRepresentation(for: .pdf) == Data("%PDF-1.7".utf8))
        }
    }

    @Test func aFileFromADataRepresentationIsWrittenAndRemoved() async throws {
        try await withTestFolder { folder in
            let provider = NSItemProvider(temporaryFilesIn: folder)
            provider.register(Data("hello".utf8), as: "public.plain-text")
            let load = await provider.fileResult("public.text")
            #expect(load.error == nil)
            #expect(load.existedInHandler)
            #expect(await load.isRemoved())
            #expect(load.contents == Data("hello".utf8))
        }
    }

    @Test func aFileFromAFileRepresentationIsACopy() async throws {
        try await withTestFolder { folder in
            let original = try folder.write("jpeg bytes", to: "IMG_0001.jpg")
            let provider = NSItemProvider(temporaryFilesIn: folder)
            provider.register(file: original, as: "public.jpeg")
            let load = await provider.fileResult("public.image")
            #expect(load.url != original)
            #expect(load.url?.lastPathComponent == "IMG_0001.jpg")
            #expect(load.contents == Data("jpeg bytes".utf8))
            #expect(load.existedInHandler)
            #expect(await load.isRemoved())
            // The provider's own file is left alone.
            #expect(FileManager.default.fileExists(atPath: original.path))
        }
    }

    @Test func loadItemReturnsWhatIsRegistered() async throws {
        let provider = NSItemProvider()
        provider.register(Data("png".utf8), as: "public.png")
        provider.register(file: URL(fileURLWithPath: "/srv/report.pdf"), as: "com.adobe.pdf")
        provider.registerItem(forTypeIdentifier: "public.plain-text") { completion, _, _ in completion?("caption" as NSString, nil) }
        #expect(try await provider.loadItem(forTypeIdentifier: "public.png").bridged(as: Data.self) == Data("png".utf8))
        #expect(try await provider.loadItem(forTypeIdentifier: "com.adobe.pdf").bridged(as: URL.self) == URL(fileURLWithPath: "/srv/report.pdf"))
        #expect(try await provider.loadItem(forTypeIdentifier: "public.text").bridged(as: String.self) == "caption")
    }

    @Test func itemsBecomeBytes() async throws {
        let provider = NSItemProvider()
        provider.registerItem(forTypeIdentifier: "public.plain-text") { completion, _, _ in completion?("héllo" as NSString, nil) }
        provider.registerItem(forTypeIdentifier: "public.url") { completion, _, _ in completion?(URL(string: "https://example.com/a?b=c")! as NSURL, nil) }
        provider.registerItem(forTypeIdentifier: "com.apple.property-list") { completion, _, _ in
            completion?(["count": 3] as NSDictionary, nil)
        }
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.plain-text") == Data("héllo".utf8))
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.url") == Data("https://example.com/a?b=c".utf8))
        let plist = try await provider.loadDataRepresentation(forTypeIdentifier: "com.apple.property-list")
        #expect(try PropertyListValue(decoding: plist) == ["count": 3])
    }

    @Test func aFileURLItemUnderAContentTypeStandsForTheFile() async throws {
        try await withTestFolder { folder in
            let photo = try folder.write("jpeg bytes", to: "photo.jpg")
            let provider = NSItemProvider(item: photo as NSURL, typeIdentifier: "public.jpeg")
            provider.temporaryDirectory = folder.temporary
            #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.jpeg") == Data("jpeg bytes".utf8))
            let load = await provider.fileResult("public.jpeg")
            #expect(load.url?.lastPathComponent == "photo.jpg")
            #expect(load.contents == Data("jpeg bytes".utf8))

            // Under a URL type the same URL is a link, and its data is the URL's text.
            let link = NSItemProvider(object: photo)
            #expect(try await link.loadDataRepresentation(forTypeIdentifier: "public.file-url") == Data(photo.absoluteString.utf8))
        }
    }

    @Test func loadInPlaceOpensTheProvidersFileOnlyWhenAllowed() async throws {
        try await withTestFolder { folder in
            let document = try folder.write("%PDF", to: "doc.pdf")
            let inPlace = NSItemProvider(contentsOf: document, contentType: .pdf, openInPlace: true)
            let copied = NSItemProvider(temporaryFilesIn: folder)
            copied.register(file: document, as: "com.adobe.pdf")
            for (provider, expectInPlace) in [(inPlace, true), (copied, false)] {
                let (url, isInPlace, error) = await withCheckedContinuation { continuation in
                    provider.loadInPlaceFileRepresentation(forTypeIdentifier: "com.adobe.pdf") { url, isInPlace, error in
                        continuation.resume(returning: (url, isInPlace, error))
                    }
                }
                #expect(error == nil)
                #expect(isInPlace == expectInPlace)
                #expect((url == document) == expectInPlace)
            }
            #expect(FileManager.default.fileExists(atPath: document.path))
        }
    }

    @Test func loadFileForAContentTypeCopiesUnlessOpenInPlace() async throws {
        try await withTestFolder { folder in
            let document = try folder.write("%PDF", to: "doc.pdf")
            let provider = NSItemProvider(contentsOf: document, contentType: .pdf, openInPlace: true)
            provider.temporaryDirectory = folder.temporary
            for openInPlace in [false, true] {
                let (url, isInPlace) = await withCheckedContinuation { continuation in
                    provider.loadFileRepresentation(for: .pdf, openInPlace: openInPlace) { url, isInPlace, _ in
                        continuation.resume(returning: (url, isInPlace))
                    }
                }
                #expect(isInPlace == openInPlace)
                #expect((url == document) == openInPlace)
            }
        }
    }
}
