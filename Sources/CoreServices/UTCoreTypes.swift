/// Apple's `CFString`, which on Linux is Swift's `String`: CoreFoundation's string type isn't
/// bridged there, and code written for Apple writes `kUTTypeImage as String` and
/// `String(kUTTypeURL)`, which compile unchanged against a `String`.
public typealias CFString = String

// The constants of Apple's UTCoreTypes (MobileCoreServices on iOS, CoreServices on macOS),
// each the identifier of a type in the system graph (`UTType`, AppexCore's SystemTypes.plist),
// with Apple's names. Apple deprecated them for `UTType` in iOS 15; extension code still
// uses them, so they are here as they were.

/// `public.item`.
public let kUTTypeItem: CFString = "public.item"
/// `public.content`.
public let kUTTypeContent: CFString = "public.content"
/// `public.composite-content`.
public let kUTTypeCompositeContent: CFString = "public.composite-content"
/// `public.message`.
public let kUTTypeMessage: CFString = "public.message"
/// `public.contact`.
public let kUTTypeContact: CFString = "public.contact"
/// `public.archive`.
public let kUTTypeArchive: CFString = "public.archive"
/// `public.disk-image`.
public let kUTTypeDiskImage: CFString = "public.disk-image"
/// `public.data`.
public let kUTTypeData: CFString = "public.data"
/// `public.directory`.
public let kUTTypeDirectory: CFString = "public.directory"
/// `com.apple.resolvable`.
public let kUTTypeResolvable: CFString = "com.apple.resolvable"
/// `public.symlink`.
public let kUTTypeSymLink: CFString = "public.symlink"
/// `public.executable`.
public let kUTTypeExecutable: CFString = "public.executable"
/// `com.apple.mount-point`.
public let kUTTypeMountPoint: CFString = "com.apple.mount-point"
/// `com.apple.alias-file`.
public let kUTTypeAliasFile: CFString = "com.apple.alias-file"
/// `com.apple.alias-record`.
public let kUTTypeAliasRecord: CFString = "com.apple.alias-record"
/// `com.apple.bookmark`.
public let kUTTypeURLBookmarkData: CFString = "com.apple.bookmark"
/// `public.url`.
public let kUTTypeURL: CFString = "public.url"
/// `public.file-url`.
public let kUTTypeFileURL: CFString = "public.file-url"
/// `public.text`.
public let kUTTypeText: CFString = "public.text"
/// `public.plain-text`.
public let kUTTypePlainText: CFString = "public.plain-text"
/// `public.utf8-plain-text`.
public let kUTTypeUTF8PlainText: CFString = "public.utf8-plain-text"
/// `public.utf16-external-plain-text`.
public let kUTTypeUTF16ExternalPlainText: CFString = "public.utf16-external-plain-text"
/// `public.utf16-plain-text`.
public let kUTTypeUTF16PlainText: CFString = "public.utf16-plain-text"
/// `public.delimited-values-text`.
public let kUTTypeDelimitedText: CFString = "public.delimited-values-text"
/// `public.comma-separated-values-text`.
public let kUTTypeCommaSeparatedText: CFString = "public.comma-separated-values-text"
/// `public.tab-separated-values-text`.
public let kUTTypeTabSeparatedText: CFString = "public.tab-separated-values-text"
/// `public.utf8-tab-separated-values-text`.
public let kUTTypeUTF8TabSeparatedText: CFString = "public.utf8-tab-separated-values-text"
/// `public.rtf`.
public let kUTTypeRTF: CFString = "public.rtf"
/// `public.html`.
public let kUTTypeHTML: CFString = "public.html"
/// `public.xml`.
public let kUTTypeXML: CFString = "public.xml"
/// `public.source-code`.
public let kUTTypeSourceCode: CFString = "public.source-code"
/// `public.assembly-source`.
public let kUTTypeAssemblyLanguageSource: CFString = "public.assembly-source"
/// `public.c-source`.
public let kUTTypeCSource: CFString = "public.c-source"
/// `public.objective-c-source`.
public let kUTTypeObjectiveCSource: CFString = "public.objective-c-source"
/// `public.swift-source`.
public let kUTTypeSwiftSource: CFString = "public.swift-source"
/// `public.c-plus-plus-source`.
public let kUTTypeCPlusPlusSource: CFString = "public.c-plus-plus-source"
/// `public.objective-c-plus-plus-source`.
public let kUTTypeObjectiveCPlusPlusSource: CFString = "public.objective-c-plus-plus-source"
/// `public.c-header`.
public let kUTTypeCHeader: CFString = "public.c-header"
/// `public.c-plus-plus-header`.
public let kUTTypeCPlusPlusHeader: CFString = "public.c-plus-plus-header"
/// `com.sun.java-source`.
public let kUTTypeJavaSource: CFString = "com.sun.java-source"
/// `public.script`.
public let kUTTypeScript: CFString = "public.script"
/// `com.apple.applescript.text`.
public let kUTTypeAppleScript: CFString = "com.apple.applescript.text"
/// `com.apple.applescript.script`.
public let kUTTypeOSAScript: CFString = "com.apple.applescript.script"
/// `com.apple.applescript.script-bundle`.
public let kUTTypeOSAScriptBundle: CFString = "com.apple.applescript.script-bundle"
/// `com.netscape.javascript-source`.
public let kUTTypeJavaScript: CFString = "com.netscape.javascript-source"
/// `public.shell-script`.
public let kUTTypeShellScript: CFString = "public.shell-script"
/// `public.perl-script`.
public let kUTTypePerlScript: CFString = "public.perl-script"
/// `public.python-script`.
public let kUTTypePythonScript: CFString = "public.python-script"
/// `public.ruby-script`.
public let kUTTypeRubyScript: CFString = "public.ruby-script"
/// `public.php-script`.
public let kUTTypePHPScript: CFString = "public.php-script"
/// `public.json`.
public let kUTTypeJSON: CFString = "public.json"
/// `com.apple.property-list`.
public let kUTTypePropertyList: CFString = "com.apple.property-list"
/// `com.apple.xml-property-list`.
public let kUTTypeXMLPropertyList: CFString = "com.apple.xml-property-list"
/// `com.apple.binary-property-list`.
public let kUTTypeBinaryPropertyList: CFString = "com.apple.binary-property-list"
/// `com.adobe.pdf`.
public let kUTTypePDF: CFString = "com.adobe.pdf"
/// `com.apple.rtfd`.
public let kUTTypeRTFD: CFString = "com.apple.rtfd"
/// `com.apple.flat-rtfd`.
public let kUTTypeFlatRTFD: CFString = "com.apple.flat-rtfd"
/// `com.apple.txn.text-multimedia-data`.
public let kUTTypeTXNTextAndMultimediaData: CFString = "com.apple.txn.text-multimedia-data"
/// `com.apple.webarchive`.
public let kUTTypeWebArchive: CFString = "com.apple.webarchive"
/// `public.image`.
public let kUTTypeImage: CFString = "public.image"
/// `public.jpeg`.
public let kUTTypeJPEG: CFString = "public.jpeg"
/// `public.jpeg-2000`.
public let kUTTypeJPEG2000: CFString = "public.jpeg-2000"
/// `public.tiff`.
public let kUTTypeTIFF: CFString = "public.tiff"
/// `com.apple.pict`.
public let kUTTypePICT: CFString = "com.apple.pict"
/// `com.compuserve.gif`.
public let kUTTypeGIF: CFString = "com.compuserve.gif"
/// `public.png`.
public let kUTTypePNG: CFString = "public.png"
/// `com.apple.quicktime-image`.
public let kUTTypeQuickTimeImage: CFString = "com.apple.quicktime-image"
/// `com.apple.icns`.
public let kUTTypeAppleICNS: CFString = "com.apple.icns"
/// `com.microsoft.bmp`.
public let kUTTypeBMP: CFString = "com.microsoft.bmp"
/// `com.microsoft.ico`.
public let kUTTypeICO: CFString = "com.microsoft.ico"
/// `public.camera-raw-image`.
public let kUTTypeRawImage: CFString = "public.camera-raw-image"
/// `public.svg-image`.
public let kUTTypeScalableVectorGraphics: CFString = "public.svg-image"
/// `com.apple.live-photo`.
public let kUTTypeLivePhoto: CFString = "com.apple.live-photo"
/// `public.audiovisual-content`.
public let kUTTypeAudiovisualContent: CFString = "public.audiovisual-content"
/// `public.movie`.
public let kUTTypeMovie: CFString = "public.movie"
/// `public.video`.
public let kUTTypeVideo: CFString = "public.video"
/// `public.audio`.
public let kUTTypeAudio: CFString = "public.audio"
/// `com.apple.quicktime-movie`.
public let kUTTypeQuickTimeMovie: CFString = "com.apple.quicktime-movie"
/// `public.mpeg`.
public let kUTTypeMPEG: CFString = "public.mpeg"
/// `public.mpeg-2-video`.
public let kUTTypeMPEG2Video: CFString = "public.mpeg-2-video"
/// `public.mpeg-2-transport-stream`.
public let kUTTypeMPEG2TransportStream: CFString = "public.mpeg-2-transport-stream"
/// `public.mp3`.
public let kUTTypeMP3: CFString = "public.mp3"
/// `public.mpeg-4`.
public let kUTTypeMPEG4: CFString = "public.mpeg-4"
/// `public.mpeg-4-audio`.
public let kUTTypeMPEG4Audio: CFString = "public.mpeg-4-audio"
/// `com.apple.protected-mpeg-4-audio`.
public let kUTTypeAppleProtectedMPEG4Audio: CFString = "com.apple.protected-mpeg-4-audio"
/// `com.apple.protected-mpeg-4-video`.
public let kUTTypeAppleProtectedMPEG4Video: CFString = "com.apple.protected-mpeg-4-video"
/// `public.avi`.
public let kUTTypeAVIMovie: CFString = "public.avi"
/// `public.aiff-audio`.
public let kUTTypeAudioInterchangeFileFormat: CFString = "public.aiff-audio"
/// `com.microsoft.waveform-audio`.
public let kUTTypeWaveformAudio: CFString = "com.microsoft.waveform-audio"
/// `public.midi-audio`.
public let kUTTypeMIDIAudio: CFString = "public.midi-audio"
/// `public.playlist`.
public let kUTTypePlaylist: CFString = "public.playlist"
/// `public.m3u-playlist`.
public let kUTTypeM3UPlaylist: CFString = "public.m3u-playlist"
/// `public.folder`.
public let kUTTypeFolder: CFString = "public.folder"
/// `public.volume`.
public let kUTTypeVolume: CFString = "public.volume"
/// `com.apple.package`.
public let kUTTypePackage: CFString = "com.apple.package"
/// `com.apple.bundle`.
public let kUTTypeBundle: CFString = "com.apple.bundle"
/// `com.apple.plugin`.
public let kUTTypePluginBundle: CFString = "com.apple.plugin"
/// `com.apple.metadata-importer`.
public let kUTTypeSpotlightImporter: CFString = "com.apple.metadata-importer"
/// `com.apple.quicklook-generator`.
public let kUTTypeQuickLookGenerator: CFString = "com.apple.quicklook-generator"
/// `com.apple.xpc-service`.
public let kUTTypeXPCService: CFString = "com.apple.xpc-service"
/// `com.apple.framework`.
public let kUTTypeFramework: CFString = "com.apple.framework"
/// `com.apple.application`.
public let kUTTypeApplication: CFString = "com.apple.application"
/// `com.apple.application-bundle`.
public let kUTTypeApplicationBundle: CFString = "com.apple.application-bundle"
/// `com.apple.application-file`.
public let kUTTypeApplicationFile: CFString = "com.apple.application-file"
/// `public.unix-executable`.
public let kUTTypeUnixExecutable: CFString = "public.unix-executable"
/// `com.microsoft.windows-executable`.
public let kUTTypeWindowsExecutable: CFString = "com.microsoft.windows-executable"
/// `com.sun.java-class`.
public let kUTTypeJavaClass: CFString = "com.sun.java-class"
/// `com.sun.java-archive`.
public let kUTTypeJavaArchive: CFString = "com.sun.java-archive"
/// `com.apple.systempreference.prefpane`.
public let kUTTypeSystemPreferencesPane: CFString = "com.apple.systempreference.prefpane"
/// `org.gnu.gnu-zip-archive`.
public let kUTTypeGNUZipArchive: CFString = "org.gnu.gnu-zip-archive"
/// `public.bzip2-archive`.
public let kUTTypeBzip2Archive: CFString = "public.bzip2-archive"
/// `public.zip-archive`.
public let kUTTypeZipArchive: CFString = "public.zip-archive"
/// `public.spreadsheet`.
public let kUTTypeSpreadsheet: CFString = "public.spreadsheet"
/// `public.presentation`.
public let kUTTypePresentation: CFString = "public.presentation"
/// `public.database`.
public let kUTTypeDatabase: CFString = "public.database"
/// `public.vcard`.
public let kUTTypeVCard: CFString = "public.vcard"
/// `public.to-do-item`.
public let kUTTypeToDoItem: CFString = "public.to-do-item"
/// `public.calendar-event`.
public let kUTTypeCalendarEvent: CFString = "public.calendar-event"
/// `public.email-message`.
public let kUTTypeEmailMessage: CFString = "public.email-message"
/// `com.apple.internet-location`.
public let kUTTypeInternetLocation: CFString = "com.apple.internet-location"
/// `com.apple.ink.inktext`.
public let kUTTypeInkText: CFString = "com.apple.ink.inktext"
/// `public.font`.
public let kUTTypeFont: CFString = "public.font"
/// `public.bookmark`.
public let kUTTypeBookmark: CFString = "public.bookmark"
/// `public.3d-content`.
public let kUTType3DContent: CFString = "public.3d-content"
/// `com.rsa.pkcs-12`.
public let kUTTypePKCS12: CFString = "com.rsa.pkcs-12"
/// `public.x509-certificate`.
public let kUTTypeX509Certificate: CFString = "public.x509-certificate"
/// `org.idpf.epub-container`.
public let kUTTypeElectronicPublication: CFString = "org.idpf.epub-container"
/// `public.log`.
public let kUTTypeLog: CFString = "public.log"
