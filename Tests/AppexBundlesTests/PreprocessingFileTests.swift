import AppexBundles
import AppexCore
import AppexTesting
import Foundation
import Glibc
import Testing

/// `NSExtensionJavaScriptPreprocessingFile`: `appex validate` reports a file that is missing,
/// misnamed, not a regular file or too large, and reading it takes the bundle's own file
/// and nothing else.
@Suite final class PreprocessingFileTests {
    let folder: URL
    private let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
        folder = temporary.url
    }

    /// An app with an Action naming `value` as its preprocessing file, written.
    func app(naming value: String, point: String = ExtensionPoint.action.id) throws -> (app: URL, appex: URL) {
        var app = BundleBuilder.app("com.example.tool", in: folder)
        app.addExtension("Colour", identifier: "com.example.tool.colour", point: point,
                         attributes: ["NSExtensionJavaScriptPreprocessingFile": .string(value),
                                      "NSExtensionActivationRule": ["NSExtensionActivationSupportsWebPageWithMaxCount": 1]])
        let url = try app.write()
        return (url, url.appendingPathComponent("PlugIns/Colour.appex"))
    }

    func diagnostics(_ app: URL) -> [String] {
        BundleValidator(types: .system).validate(appAt: app).diagnostics
            .filter { $0.keyPath?.hasSuffix("NSExtensionJavaScriptPreprocessingFile") == true }
            .map { "\($0.severity) \($0.code)" }
    }

    @Test func aPresentFileIsValidAndReadWhole() throws {
        let (app, appex) = try app(naming: "Colour")
        try "var ExtensionPreprocessingJS = {};\n".write(to: appex.appendingPathComponent("Colour.js"), atomically: true, encoding: .utf8)
        #expect(diagnostics(app).isEmpty)
        #expect(try PreprocessingFile.read("Colour", inExtensionAt: appex) == PreprocessingFile(fileName: "Colour.js", source: "var ExtensionPreprocessingJS = {};\n"))
    }

    @Test func aMissingFileIsAnError() throws {
        let (app, appex) = try app(naming: "Colour")
        #expect(diagnostics(app) == ["error missing-preprocessing-file"])
        #expect(throws: PreprocessingFileError.self) { try PreprocessingFile.read("Colour", inExtensionAt: appex) }
    }

    @Test func aNameWithItsExtensionOrAFolderIsAnError() throws {
        #expect(diagnostics(try app(naming: "Colour.js").app) == ["error invalid-preprocessing-file"])
        #expect(diagnostics(try app(naming: "../../../../etc/passwd").app) == ["error invalid-preprocessing-file"])
        #expect(diagnostics(try app(naming: ".hidden").app) == ["error invalid-preprocessing-file"])
    }

    /// A link is refused even to a file inside the bundle: the script is injected into web
    /// pages, so it is the bundle's own file or nothing. A FIFO doesn't make anyone wait.
    @Test func aLinkOrAFifoIsRefused() throws {
        let (app, appex) = try app(naming: "Colour")
        try FileManager.default.createSymbolicLink(atPath: appex.appendingPathComponent("Colour.js").path, withDestinationPath: "/etc/hostname")
        #expect(diagnostics(app).contains("error preprocessing-file-not-regular"))
        try FileManager.default.removeItem(at: appex.appendingPathComponent("Colour.js"))
        #expect(mkfifo(appex.appendingPathComponent("Colour.js").path, 0o644) == 0)
        #expect(diagnostics(app).contains("error preprocessing-file-not-regular"))
    }

    @Test func aFileTooLargeOrNotUTF8IsAnError() throws {
        let (app, appex) = try app(naming: "Colour")
        let file = appex.appendingPathComponent("Colour.js")
        try Data(count: PreprocessingFile.maximumLength + 1).write(to: file)
        #expect(diagnostics(app) == ["error preprocessing-file-too-large"])
        try Data([0x76, 0x61, 0x72, 0xff, 0xfe]).write(to: file)
        #expect(diagnostics(app) == ["error preprocessing-file-not-utf8"])
    }

    @Test func onlyShareAndActionExtensionsGetAWebPage() throws {
        let (app, appex) = try app(naming: "Colour", point: ExtensionPoint.today.id)
        try "".write(to: appex.appendingPathComponent("Colour.js"), atomically: true, encoding: .utf8)
        #expect(diagnostics(app) == ["warning preprocessing-file-ignored"])
    }
}
