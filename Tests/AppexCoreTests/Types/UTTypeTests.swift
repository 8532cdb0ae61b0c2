import AppexCore
import Foundation
import Testing

@Suite struct UTTypeTests {
    @Test func constantsAreDeclaredSystemTypes() {
        let constants: [UTType] = [
            .item, .content, .data, .directory, .folder, .package, .bundle, .applicationBundle, .symbolicLink,
            .aliasFile, .url, .fileURL, .text, .plainText, .utf8PlainText, .utf16PlainText, .rtf, .html, .xml, .json,
            .sourceCode, .script, .shellScript, .pythonScript, .image, .jpeg, .png, .tiff, .gif, .bmp, .heic, .heif,
            .svg, .webP, .rawImage, .pdf, .propertyList, .xmlPropertyList, .binaryPropertyList, .audiovisualContent,
            .movie, .video, .audio, .mpeg4Movie, .quickTimeMovie, .mp3, .mpeg4Audio, .wav, .aiff, .avi, .mpeg,
            .mpeg2Video, .contact, .vCard, .calendarEvent, .archive, .zip, .gzip, .executable, .message,
            .emailMessage, .presentation, .spreadsheet, .webArchive, .font, .threeDContent, .log, .database,
        ]
        for type in constants {
            #expect(type.isDeclared, "\(type.identifier)")
            #expect(type.isSystemDeclared, "\(type.identifier)")
            #expect(!type.isDynamic)
        }
        #expect(UTType.gif.identifier == "com.compuserve.gif")
        #expect(UTType.webP.identifier == "org.webmproject.webp")
        #expect(UTType.wav.identifier == "com.microsoft.waveform-audio")
        #expect(UTType.quickTimeMovie.identifier == "com.apple.quicktime-movie")
    }

    @Test func conformanceOverTheGraph() {
        #expect(UTType.jpeg.conforms(to: .image))
        #expect(UTType.jpeg.conforms(to: .data))
        #expect(UTType.jpeg.conforms(to: .content))
        #expect(UTType.jpeg.conforms(to: .item))
        #expect(!UTType.jpeg.conforms(to: .text))
        #expect(UTType.jpeg.isSubtype(of: .image))
        #expect(UTType.image.isSupertype(of: .png))
        #expect(!UTType.image.isSubtype(of: .image))
        #expect(UTType.fileURL.conforms(to: .url))
        #expect(UTType.vCard.conforms(to: .contact))
        #expect(UTType.vCard.conforms(to: .text))
        #expect(UTType.mpeg4Audio.conforms(to: .audio))
        #expect(UTType.mpeg4Audio.conforms(to: .mpeg))
        #expect(UTType.tarArchive.conforms(to: .archive))
        #expect(UTType.heics.conforms(to: .image))
        #expect(UTType.pdf.conforms(to: .compositeContent))
        #expect(UTType.aiff.conforms(to: .audio))
        #expect(UTType.pythonScript.conforms(to: .sourceCode))
    }

    @Test func supertypes() {
        #expect(UTType.jpeg.supertypes == [.image, .data, .content, .item])
        #expect(UTType.item.supertypes.isEmpty)
    }

    @Test func identifiersAreCaseInsensitive() throws {
        let shouting = try #require(UTType("PUBLIC.JPEG"))
        #expect(shouting == .jpeg)
        #expect(shouting.hashValue == UTType.jpeg.hashValue)
        #expect(shouting.conforms(to: .image))
        #expect(UTType.jpeg.conforms(to: try #require(UTType("Public.Image"))))
        #expect(Set([shouting, .jpeg]).count == 1)
    }

    @Test func undeclaredAndMalformedIdentifiers() throws {
        let unknown = try #require(UTType("com.example.never-declared"))
        #expect(!unknown.isDeclared)
        #expect(!unknown.isDynamic)
        #expect(unknown.conforms(to: unknown))
        #expect(!unknown.conforms(to: .item))
        #expect(unknown.supertypes.isEmpty)
        #expect(unknown.preferredFilenameExtension == nil)
        #expect(UTType("") == nil)
        #expect(UTType("not an identifier") == nil)
    }

    @Test func tagsAndDescriptions() {
        #expect(UTType.jpeg.preferredFilenameExtension == "jpeg")
        #expect(UTType.jpeg.preferredMIMEType == "image/jpeg")
        #expect(UTType.jpeg.tags[.filenameExtension] == ["jpeg", "jpg", "jpe"])
        #expect(UTType.pdf.localizedDescription == "PDF document")
        #expect(UTType.jpeg.description == "public.jpeg")
        #expect(UTType.image.preferredMIMEType == nil)
        #expect(UTType.jpeg.isPublic)
        #expect(!UTType.pdf.isPublic)
        #expect(["public.jpeg", "not a type", "com.adobe.pdf"].compactMap(UTType.init) == [.jpeg, .pdf], "Apple's init?(_:) is a function of one argument")
    }

    @Test func lookupByFilenameExtension() {
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(filenameExtension: "JPG") == .jpeg)
        #expect(UTType(filenameExtension: "png") == .png)
        #expect(UTType(filenameExtension: "pdf") == .pdf)
        #expect(UTType(filenameExtension: "docx")?.identifier == "org.openxmlformats.wordprocessingml.document")
        #expect(UTType(filenameExtension: "py") == .pythonScript)
        // Bundles are directories, not data, so ask for what they are.
        #expect(UTType(filenameExtension: "appex")?.isDynamic == true)
        #expect(UTType(filenameExtension: "appex", conformingTo: .bundle) == .applicationExtension)
        #expect(UTType(filenameExtension: "app", conformingTo: .bundle) == .applicationBundle)
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType(filenameExtension: "a/b") == nil)
    }

    @Test func lookupByMIMEType() {
        #expect(UTType(mimeType: "image/jpeg") == .jpeg)
        #expect(UTType(mimeType: "IMAGE/JPEG") == .jpeg)
        #expect(UTType(mimeType: "application/pdf") == .pdf)
        #expect(UTType(mimeType: "text/plain") == .plainText)
        #expect(UTType(mimeType: "text/plain; charset=utf-8") == .plainText)
        #expect(UTType(mimeType: "audio/mpeg") == .mp3)
        #expect(UTType(mimeType: "video/quicktime") == .quickTimeMovie)
        #expect(UTType(mimeType: "no-slash") == nil)
    }

    @Test func tagLookupsRoundTrip() {
        for type in [UTType.jpeg, .png, .pdf, .html, .json, .mp3, .zip, .gif, .heic, .webP, .vCard] {
            let byExtension = type.preferredFilenameExtension.flatMap { UTType(filenameExtension: $0) }
            #expect(byExtension == type, "\(type.identifier) by extension")
            let byMIME = type.preferredMIMEType.flatMap { UTType(mimeType: $0) }
            #expect(byMIME == type, "\(type.identifier) by MIME type")
        }
    }

    @Test func conformingToNarrowsTheLookup() {
        // "xml" is public.xml's extension; asking for an image gets a dynamic type instead.
        #expect(UTType(filenameExtension: "xml") == .xml)
        let asImage = UTType(filenameExtension: "xml", conformingTo: .image)
        #expect(asImage?.isDynamic == true)
        #expect(asImage?.conforms(to: .image) == true)
        #expect(UTType.types(tag: "xml", tagClass: .filenameExtension, conformingTo: nil) == [.xml])
        #expect(UTType.types(tag: "xml", tagClass: .filenameExtension, conformingTo: .image).isEmpty)
        #expect(UTType(tag: "jpg", tagClass: .filenameExtension, conformingTo: nil) == .jpeg)
        #expect(UTType(tag: "JPEG", tagClass: UTTagClass(rawValue: "com.apple.ostype"), conformingTo: nil) == nil)
    }

    @Test func codableAsItsIdentifier() throws {
        let data = try JSONEncoder().encode([UTType.jpeg, .pdf])
        #expect(String(decoding: data, as: UTF8.self) == #"["public.jpeg","com.adobe.pdf"]"#)
        let decoded = try JSONDecoder().decode([UTType].self, from: data)
        #expect(decoded == [.jpeg, .pdf])
        #expect(decoded[0].conforms(to: .image))
    }

    @Test func exportedAsConformsToItsParentWhenUndeclared() {
        let note = UTType(exportedAs: "com.example.notes.note", conformingTo: .plainText)
        #expect(!note.isDeclared)
        #expect(note.conforms(to: .plainText))
        #expect(note.conforms(to: .data))
        #expect(!note.conforms(to: .image))
        let imported = UTType(importedAs: "public.jpeg", conformingTo: .text)
        #expect(imported == .jpeg)
        #expect(!imported.conforms(to: .text))
    }
}

/// Apple's URL additions complete a file name for a type, keeping an extension that fits.
@Suite struct URLTypeTests {
    let folder = URL(fileURLWithPath: "/srv/downloads")

    @Test func aNameWithoutAFittingExtensionGetsThePreferredOne() {
        #expect(folder.appendingPathComponent("readme", conformingTo: .plainText).lastPathComponent == "readme.txt")
        #expect(folder.appendingPathComponent("puppy.jpg", conformingTo: .image).lastPathComponent == "puppy.jpg")
        #expect(folder.appendingPathComponent("puppy.jpg", conformingTo: .pdf).lastPathComponent == "puppy.jpg.pdf")
        var url = folder
        url.appendPathComponent("report", conformingTo: .pdf)
        #expect(url.path == "/srv/downloads/report.pdf")
    }

    @Test func anExtensionIsAppendedOnlyWhenTheNameLacksAFittingOne() {
        #expect(folder.appendingPathComponent("notes").appendingPathExtension(for: .plainText).path == "/srv/downloads/notes.txt")
        #expect(folder.appendingPathComponent("notes.txt").appendingPathExtension(for: .text).path == "/srv/downloads/notes.txt")
        var url = folder.appendingPathComponent("photo")
        url.appendPathExtension(for: .jpeg)
        #expect(url.lastPathComponent == "photo.jpeg" || url.lastPathComponent == "photo.jpg")
        #expect(folder.appendingPathComponent("blob").appendingPathExtension(for: UTType(importedAs: "com.example.untagged")).lastPathComponent == "blob",
                "a type without a preferred extension adds none")
    }
}

/// The static types added from Apple's pages name the identifiers Apple documents, which the
/// system graph declares with Apple's conformances.
@Suite struct AddedStaticTypeTests {
    @Test(arguments: [
        (UTType.bookmark, "public.bookmark", UTType.bookmark), (.css, "public.css", .text), (.osaScript, "com.apple.applescript.script", .script),
        (.osaScriptBundle, "com.apple.applescript.script-bundle", .bundle), (.spotlightImporter, "com.apple.metadata-importer", .pluginBundle),
        (.quickLookGenerator, "com.apple.quicklook-generator", .pluginBundle), (.systemPreferencesPane, "com.apple.systempreference.prefpane", .bundle),
        (.exr, "com.ilm.openexr-image", .image), (.dng, "com.adobe.raw-image", .image), (.realityFile, "com.apple.reality", .data),
        (.sceneKitScene, "com.apple.scenekit.scene", .threeDContent), (.arReferenceObject, "com.apple.arobject", .data),
        (.jpegxl, "public.jpeg-xl", .image), (.linkPresentationMetadata, "com.apple.linkpresentation.metadata", .data),
        (.livePhoto, "com.apple.live-photo", .image), (.internetLocation, "com.apple.internet-location", UTType("public.stored-url")!),
        (.internetShortcut, "com.microsoft.internet-shortcut", UTType("public.stored-url")!),
        (.appleProtectedMPEG4Video, "com.apple.protected-mpeg-4-video", .mpeg4Movie), (.shazamSignature, "com.apple.shazamsignature", .data),
        (.shazamCustomCatalog, "com.apple.shazamcatalog", .data), (.geoJSON, "public.geojson", .json),
    ])
    func eachNamesApplesIdentifierAndConformsAsApplesDoes(type: UTType, identifier: String, parent: UTType) {
        #expect(type.identifier == identifier)
        #expect(type.isDeclared)
        #expect(type.conforms(to: parent), "\(identifier) conforms to \(parent.identifier)")
    }
}
