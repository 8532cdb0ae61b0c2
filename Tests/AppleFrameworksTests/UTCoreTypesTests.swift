import Foundation
import MobileCoreServices
import Testing

/// Every constant of Apple's UTCoreTypes exists with Apple's name and type, names a type the
/// system graph declares, and that type conforms to what Apple's header says it does.
@Suite struct UTCoreTypesTests {
    /// Each constant, the identifier Apple gives it, and the types Apple says it conforms to
    /// (UTCoreTypes.h, checked against UTType's documentation where the two differ).
    static let constants: [(constant: CFString, identifier: String, conformsTo: [String])] = [
        (kUTTypeItem, "public.item", []),
        (kUTTypeContent, "public.content", []),
        (kUTTypeCompositeContent, "public.composite-content", ["public.content"]),
        (kUTTypeMessage, "public.message", []),
        (kUTTypeContact, "public.contact", []),
        (kUTTypeArchive, "public.archive", []),
        (kUTTypeDiskImage, "public.disk-image", []),
        (kUTTypeData, "public.data", ["public.item"]),
        (kUTTypeDirectory, "public.directory", ["public.item"]),
        (kUTTypeResolvable, "com.apple.resolvable", []),
        (kUTTypeSymLink, "public.symlink", ["public.item", "com.apple.resolvable"]),
        (kUTTypeExecutable, "public.executable", ["public.item"]),
        (kUTTypeMountPoint, "com.apple.mount-point", ["public.item", "com.apple.resolvable"]),
        (kUTTypeAliasFile, "com.apple.alias-file", ["public.data", "com.apple.resolvable"]),
        (kUTTypeAliasRecord, "com.apple.alias-record", ["public.data", "com.apple.resolvable"]),
        (kUTTypeURLBookmarkData, "com.apple.bookmark", ["public.data", "com.apple.resolvable"]),
        (kUTTypeURL, "public.url", ["public.data"]),
        (kUTTypeFileURL, "public.file-url", ["public.url"]),
        (kUTTypeText, "public.text", ["public.data", "public.content"]),
        (kUTTypePlainText, "public.plain-text", ["public.text"]),
        (kUTTypeUTF8PlainText, "public.utf8-plain-text", ["public.plain-text"]),
        (kUTTypeUTF16ExternalPlainText, "public.utf16-external-plain-text", ["public.plain-text"]),
        (kUTTypeUTF16PlainText, "public.utf16-plain-text", ["public.plain-text"]),
        (kUTTypeDelimitedText, "public.delimited-values-text", ["public.text"]),
        (kUTTypeCommaSeparatedText, "public.comma-separated-values-text", ["public.delimited-values-text"]),
        (kUTTypeTabSeparatedText, "public.tab-separated-values-text", ["public.delimited-values-text"]),
        (kUTTypeUTF8TabSeparatedText, "public.utf8-tab-separated-values-text", ["public.tab-separated-values-text", "public.utf8-plain-text"]),
        (kUTTypeRTF, "public.rtf", ["public.text"]),
        (kUTTypeHTML, "public.html", ["public.text"]),
        (kUTTypeXML, "public.xml", ["public.text"]),
        (kUTTypeSourceCode, "public.source-code", ["public.plain-text"]),
        (kUTTypeAssemblyLanguageSource, "public.assembly-source", ["public.source-code"]),
        (kUTTypeCSource, "public.c-source", ["public.source-code"]),
        (kUTTypeObjectiveCSource, "public.objective-c-source", ["public.source-code"]),
        (kUTTypeSwiftSource, "public.swift-source", ["public.source-code"]),
        (kUTTypeCPlusPlusSource, "public.c-plus-plus-source", ["public.source-code"]),
        (kUTTypeObjectiveCPlusPlusSource, "public.objective-c-plus-plus-source", ["public.source-code"]),
        (kUTTypeCHeader, "public.c-header", ["public.source-code"]),
        (kUTTypeCPlusPlusHeader, "public.c-plus-plus-header", ["public.source-code"]),
        (kUTTypeJavaSource, "com.sun.java-source", ["public.source-code"]),
        (kUTTypeScript, "public.script", ["public.source-code"]),
        (kUTTypeAppleScript, "com.apple.applescript.text", ["public.script"]),
        (kUTTypeOSAScript, "com.apple.applescript.script", ["public.data", "public.script"]),
        (kUTTypeOSAScriptBundle, "com.apple.applescript.script-bundle", ["com.apple.bundle", "com.apple.package", "public.script"]),
        (kUTTypeJavaScript, "com.netscape.javascript-source", ["public.source-code", "public.executable"]),
        (kUTTypeShellScript, "public.shell-script", ["public.script"]),
        (kUTTypePerlScript, "public.perl-script", ["public.shell-script"]),
        (kUTTypePythonScript, "public.python-script", ["public.shell-script"]),
        (kUTTypeRubyScript, "public.ruby-script", ["public.shell-script"]),
        (kUTTypePHPScript, "public.php-script", ["public.shell-script"]),
        (kUTTypeJSON, "public.json", ["public.text"]),
        (kUTTypePropertyList, "com.apple.property-list", ["public.data"]),
        (kUTTypeXMLPropertyList, "com.apple.xml-property-list", ["public.xml", "com.apple.property-list"]),
        (kUTTypeBinaryPropertyList, "com.apple.binary-property-list", ["com.apple.property-list"]),
        (kUTTypePDF, "com.adobe.pdf", ["public.data", "public.composite-content"]),
        (kUTTypeRTFD, "com.apple.rtfd", ["com.apple.package", "public.composite-content"]),
        (kUTTypeFlatRTFD, "com.apple.flat-rtfd", ["public.data", "public.composite-content"]),
        (kUTTypeTXNTextAndMultimediaData, "com.apple.txn.text-multimedia-data", ["public.data", "public.composite-content"]),
        (kUTTypeWebArchive, "com.apple.webarchive", ["public.data", "public.composite-content"]),
        (kUTTypeImage, "public.image", ["public.data", "public.content"]),
        (kUTTypeJPEG, "public.jpeg", ["public.image"]),
        (kUTTypeJPEG2000, "public.jpeg-2000", ["public.image"]),
        (kUTTypeTIFF, "public.tiff", ["public.image"]),
        (kUTTypePICT, "com.apple.pict", ["public.image"]),
        (kUTTypeGIF, "com.compuserve.gif", ["public.image"]),
        (kUTTypePNG, "public.png", ["public.image"]),
        (kUTTypeQuickTimeImage, "com.apple.quicktime-image", ["public.image"]),
        (kUTTypeAppleICNS, "com.apple.icns", ["public.image"]),
        (kUTTypeBMP, "com.microsoft.bmp", ["public.image"]),
        (kUTTypeICO, "com.microsoft.ico", ["public.image"]),
        (kUTTypeRawImage, "public.camera-raw-image", ["public.image"]),
        (kUTTypeScalableVectorGraphics, "public.svg-image", ["public.image"]),
        (kUTTypeLivePhoto, "com.apple.live-photo", []),
        (kUTTypeAudiovisualContent, "public.audiovisual-content", ["public.data", "public.content"]),
        (kUTTypeMovie, "public.movie", ["public.audiovisual-content"]),
        (kUTTypeVideo, "public.video", ["public.movie"]),
        (kUTTypeAudio, "public.audio", ["public.audiovisual-content"]),
        (kUTTypeQuickTimeMovie, "com.apple.quicktime-movie", ["public.movie"]),
        (kUTTypeMPEG, "public.mpeg", ["public.movie"]),
        (kUTTypeMPEG2Video, "public.mpeg-2-video", ["public.video"]),
        (kUTTypeMPEG2TransportStream, "public.mpeg-2-transport-stream", ["public.movie"]),
        (kUTTypeMP3, "public.mp3", ["public.audio"]),
        (kUTTypeMPEG4, "public.mpeg-4", ["public.movie"]),
        // As UTType documents it now; the old header said public.mpeg-4.
        (kUTTypeMPEG4Audio, "public.mpeg-4-audio", ["public.mpeg", "public.audio"]),
        (kUTTypeAppleProtectedMPEG4Audio, "com.apple.protected-mpeg-4-audio", ["public.audio"]),
        (kUTTypeAppleProtectedMPEG4Video, "com.apple.protected-mpeg-4-video", ["com.apple.m4v-video"]),
        (kUTTypeAVIMovie, "public.avi", ["public.movie"]),
        (kUTTypeAudioInterchangeFileFormat, "public.aiff-audio", ["public.aifc-audio"]),
        (kUTTypeWaveformAudio, "com.microsoft.waveform-audio", ["public.audio"]),
        (kUTTypeMIDIAudio, "public.midi-audio", ["public.audio"]),
        (kUTTypePlaylist, "public.playlist", []),
        (kUTTypeM3UPlaylist, "public.m3u-playlist", ["public.text", "public.playlist"]),
        (kUTTypeFolder, "public.folder", ["public.directory"]),
        (kUTTypeVolume, "public.volume", ["public.folder"]),
        (kUTTypePackage, "com.apple.package", ["public.directory"]),
        (kUTTypeBundle, "com.apple.bundle", ["public.directory"]),
        (kUTTypePluginBundle, "com.apple.plugin", ["com.apple.bundle", "com.apple.package"]),
        (kUTTypeSpotlightImporter, "com.apple.metadata-importer", ["com.apple.plugin"]),
        (kUTTypeQuickLookGenerator, "com.apple.quicklook-generator", ["com.apple.plugin"]),
        (kUTTypeXPCService, "com.apple.xpc-service", ["com.apple.bundle", "com.apple.package"]),
        (kUTTypeFramework, "com.apple.framework", ["com.apple.bundle"]),
        (kUTTypeApplication, "com.apple.application", ["public.executable"]),
        (kUTTypeApplicationBundle, "com.apple.application-bundle", ["com.apple.application", "com.apple.bundle", "com.apple.package"]),
        (kUTTypeApplicationFile, "com.apple.application-file", ["com.apple.application", "public.data"]),
        (kUTTypeUnixExecutable, "public.unix-executable", ["public.data", "public.executable"]),
        (kUTTypeWindowsExecutable, "com.microsoft.windows-executable", ["public.data", "public.executable"]),
        (kUTTypeJavaClass, "com.sun.java-class", ["public.data", "public.executable"]),
        (kUTTypeJavaArchive, "com.sun.java-archive", ["public.zip-archive", "public.executable"]),
        (kUTTypeSystemPreferencesPane, "com.apple.systempreference.prefpane", ["com.apple.package", "com.apple.bundle"]),
        (kUTTypeGNUZipArchive, "org.gnu.gnu-zip-archive", ["public.data", "public.archive"]),
        (kUTTypeBzip2Archive, "public.bzip2-archive", ["public.data", "public.archive"]),
        (kUTTypeZipArchive, "public.zip-archive", ["com.pkware.zip-archive"]),
        (kUTTypeSpreadsheet, "public.spreadsheet", ["public.content"]),
        (kUTTypePresentation, "public.presentation", ["public.composite-content"]),
        (kUTTypeDatabase, "public.database", []),
        (kUTTypeVCard, "public.vcard", ["public.text", "public.contact"]),
        (kUTTypeToDoItem, "public.to-do-item", []),
        (kUTTypeCalendarEvent, "public.calendar-event", []),
        (kUTTypeEmailMessage, "public.email-message", ["public.message"]),
        (kUTTypeInternetLocation, "com.apple.internet-location", ["public.data"]),
        (kUTTypeInkText, "com.apple.ink.inktext", ["public.data"]),
        (kUTTypeFont, "public.font", []),
        (kUTTypeBookmark, "public.bookmark", []),
        (kUTType3DContent, "public.3d-content", ["public.content"]),
        (kUTTypePKCS12, "com.rsa.pkcs-12", ["public.data"]),
        (kUTTypeX509Certificate, "public.x509-certificate", ["public.data"]),
        (kUTTypeElectronicPublication, "org.idpf.epub-container", ["public.data", "public.composite-content"]),
        (kUTTypeLog, "public.log", [])
    ]

    @Test func everyConstantNamesItsIdentifier() {
        #expect(Self.constants.count == 128)
        for (constant, identifier, _) in Self.constants { #expect(constant == identifier) }
    }

    @Test func everyTypeIsDeclaredAndConformsAsApplesHeaderSays() {
        for (constant, _, conformsTo) in Self.constants {
            #expect(UTTypeIsDeclared(constant), "\(constant) is not declared")
            for parent in conformsTo {
                #expect(UTTypeConformsTo(constant, parent), "\(constant) does not conform to \(parent)")
            }
        }
    }

    /// The review found this one: a real rule that names the legacy identifier failed to
    /// match a zip.
    @Test func aZipArchiveConformsToTheLegacyPKWareIdentifier() {
        #expect(UTTypeConformsTo(kUTTypeZipArchive, "com.pkware.zip-archive"))
        #expect(UTTypeConformsTo("com.pkware.zip-archive", kUTTypeArchive))
        #expect(UTTypeConformsTo(kUTTypeJavaArchive, "com.pkware.zip-archive"))
    }

    /// The forms code written for Apple's platforms uses, compiled unchanged.
    @Test func theConstantsAreUsedAsOnApple() {
        let types: [String] = [kUTTypeImage as String, String(kUTTypeURL), kUTTypePlainText as String]
        #expect(types == ["public.image", "public.url", "public.plain-text"])
        #expect(UTTypeConformsTo("public.jpeg" as CFString, kUTTypeImage))
        #expect(!UTTypeConformsTo(kUTTypeImage, "public.jpeg" as CFString))
        let jpeg = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "jpg" as CFString, nil)?.takeRetainedValue()
        #expect(jpeg as String? == "public.jpeg")
        let mime = UTTypeCopyPreferredTagWithClass(kUTTypePNG, kUTTagClassMIMEType)?.takeRetainedValue()
        #expect(mime as String? == "image/png")
        #expect(UTTypeCopyDescription(kUTTypePDF)?.takeRetainedValue() != nil)
        #expect(UTTypeEqual(kUTTypeJPEG, "public.jpeg"))
        let unknown = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "nosuchext" as CFString, kUTTypeData)?.takeRetainedValue()
        #expect(unknown.map { UTTypeIsDynamic($0) && !UTTypeIsDeclared($0) } == true, "\(String(describing: unknown))")
    }

    /// `UTTypeCopyDeclaration` gives the dictionary as Apple's does, read the ways code
    /// written for Apple's systems reads it; the declaring bundle is `nil` (docs/porting.md).
    @Test func theDeclarationIsADictionaryReadAsOnApple() throws {
        let declaration = try #require(UTTypeCopyDeclaration(kUTTypePNG)?.takeRetainedValue() as? [String: Any])
        #expect(declaration[kUTTypeIdentifierKey as String] as? String == "public.png")
        #expect((declaration[kUTTypeConformsToKey as String] as? [String])?.contains("public.image") == true)
        let tags = try #require(declaration[kUTTypeTagSpecificationKey as String] as? [String: Any])
        #expect(tags[kUTTagClassFilenameExtension as String] as? [String] == ["png"])
        let bridged: NSDictionary? = UTTypeCopyDeclaration(kUTTypePDF)?.takeRetainedValue()
        #expect(bridged?[kUTTypeIdentifierKey] as? String == "com.adobe.pdf")
        #expect(UTTypeCopyDeclaration("org.example.nobody-declares" as CFString) == nil)
        let dynamic = try #require(UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "nosuchext" as CFString, nil)?.takeRetainedValue())
        #expect(UTTypeCopyDeclaration(dynamic) == nil)
        let url: URL? = UTTypeCopyDeclaringBundleURL(kUTTypePNG)?.takeRetainedValue() as URL?
        #expect(url == nil)
    }
}
