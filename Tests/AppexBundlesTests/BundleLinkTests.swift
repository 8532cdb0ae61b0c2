import AppexBundles
import AppexCore
import AppexTesting
import Foundation
import Glibc
import Testing

/// A bundle's links are judged as the kernel follows them, from the bundle root through every
/// link on the way, and its files are read only through links that stay inside it: a hostile
/// author can't reach a file outside, nor make validation wait on a FIFO or read without end.
@Suite final class BundleLinkTests {
    let folder: URL
    private let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
        folder = temporary.url
    }

    /// A valid app with a Share extension, written.
    func writtenApp() throws -> URL {
        var app = BundleBuilder.app("com.example.tool", in: folder)
        app.addExtension("Share", identifier: "com.example.tool.share", point: "com.apple.share-services",
                         attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]])
        return try app.write()
    }

    func link(_ path: String, to target: String, in app: URL) throws {
        let url = app.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target)
    }

    func errors(_ app: URL) -> [String] {
        BundleValidator(types: .system).validate(appAt: app).diagnostics.filter { $0.severity == .error }.map { "\($0.code) \($0.file)" }.sorted()
    }

    /// The review's escape: each link stays inside by its text; together they lead to `/`.
    @Test func aChainOfLinksThatEachStayInsideByTheirTextButLeadOutTogetherIsRefused() throws {
        let app = try writtenApp()
        let depth = app.pathComponents.count
        try link("a/b/c/up", to: "../../..", in: app)
        try link("Library", to: "a/b/c/up/" + String(repeating: "../", count: depth), in: app)
        // Each one climbs one level more than the last, by way of the one before.
        try link("x/W", to: "..", in: app)
        try link("x/V1", to: "W/..", in: app)
        try link("Info2.plist", to: "x/V1/etc/hostname", in: app)
        #expect(FileManager.default.fileExists(atPath: app.appendingPathComponent("Library/etc/passwd").path), "the chain leads to /")
        #expect(errors(app) == ["link-escapes-bundle Tool.app/Info2.plist", "link-escapes-bundle Tool.app/Library", "link-escapes-bundle Tool.app/x/V1"],
                "\(errors(app))")
        let problem = try #require(BundleValidator(types: .system).validate(appAt: app).diagnostics.first { $0.file == "Tool.app/Library" })
        #expect(problem.message.contains("followed as the kernel follows it through every link on the way"), "\(problem.message)")
    }

    @Test func aLinkThatLeadsWithinTheBundleIsKept() throws {
        let app = try writtenApp()
        try link("Resources/notes.txt", to: "../Info.plist", in: app)
        try link("en.lproj/InfoPlist.strings", to: "../base.lproj/InfoPlist.strings", in: app)
        try FileManager.default.createDirectory(at: app.appendingPathComponent("base.lproj"), withIntermediateDirectories: true)
        try Data("\"CFBundleDisplayName\" = \"Werkzeug\";".utf8).write(to: app.appendingPathComponent("base.lproj/InfoPlist.strings"))
        let inspection = BundleValidator(types: .system).validate(appAt: app)
        #expect(inspection.isValid, "\(inspection.diagnostics)")
        #expect(inspection.bundle?.localizedStrings["en"]?["CFBundleDisplayName"] == "Werkzeug")
    }

    @Test func aLoopOfLinksIsRefusedWithWhatItIs() throws {
        let app = try writtenApp()
        try link("one", to: "two", in: app)
        try link("two", to: "one", in: app)
        #expect(errors(app) == ["link-loop Tool.app/one", "link-loop Tool.app/two"], "\(errors(app))")
    }

    /// The sandbox grants `Frameworks`, `PlugIns` and each extension by path, and the launcher
    /// follows no link there, so each must be a real folder.
    @Test func aGrantedFolderThatIsALinkIsRefusedEvenWhereItLeadsInside() throws {
        let app = try writtenApp()
        try FileManager.default.createDirectory(at: app.appendingPathComponent("Libraries"), withIntermediateDirectories: true)
        try link("Frameworks", to: "Libraries", in: app)
        try FileManager.default.moveItem(at: app.appendingPathComponent("PlugIns/Share.appex"), to: app.appendingPathComponent("Share.appex-real"))
        try link("PlugIns/Share.appex", to: "../Share.appex-real", in: app)
        let found = errors(app)
        #expect(found.contains("granted-folder-is-link Tool.app/Frameworks"), "\(found)")
        #expect(found.contains("granted-folder-is-link Tool.app/PlugIns/Share.appex"), "\(found)")
    }

    /// Info.plist as a link to a device outside, or as a FIFO: read, either would never end.
    @Test(.timeLimit(.minutes(1))) func anInfoPlistThatLeadsToADeviceOrIsAFIFOIsRefusedWithoutWaiting() throws {
        let app = try writtenApp()
        let plugIn = app.appendingPathComponent("PlugIns/Share.appex")
        try FileManager.default.removeItem(at: plugIn.appendingPathComponent("Info.plist"))
        try link("PlugIns/Share.appex/Info.plist", to: "../../a/" + String(repeating: "../", count: app.pathComponents.count) + "dev/zero", in: app)
        try FileManager.default.createDirectory(at: app.appendingPathComponent("a"), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: app.appendingPathComponent("Entitlements.plist"))
        #expect(mkfifo(app.appendingPathComponent("Entitlements.plist").path, 0o600) == 0)
        let inspection = BundleValidator(types: .system).validate(appAt: app)
        let codes = inspection.diagnostics.filter { $0.severity == .error }.map { "\($0.code) \($0.file)" }
        #expect(codes.contains("link-escapes-bundle Tool.app/PlugIns/Share.appex/Info.plist"), "\(codes)")
        #expect(codes.contains("special-file Tool.app/Entitlements.plist"), "\(codes)")
        #expect(codes.contains("malformed-plist Tool.app/Entitlements.plist"), "\(codes)")
    }

    @Test func aStringsFileOverTheLimitIsRefusedUnread() throws {
        let app = try writtenApp()
        let strings = app.appendingPathComponent("en.lproj/InfoPlist.strings")
        try FileManager.default.createDirectory(at: strings.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Sparse: a terabyte that takes no disk, and would take all the memory if it were read.
        #expect(FileManager.default.createFile(atPath: strings.path, contents: nil))
        let file = try #require(FileHandle(forWritingAtPath: strings.path))
        try file.truncate(atOffset: 1 << 40)
        try file.close()
        let inspection = BundleValidator(types: .system).validate(appAt: app)
        let problem = try #require(inspection.diagnostics.first { $0.file == "Tool.app/en.lproj/InfoPlist.strings" })
        #expect(problem.code == "malformed-strings" && problem.message.contains("over the 4194304-byte limit"), "\(problem)")
        #expect(inspection.diagnostics.contains { $0.code == "too-large" }, "a terabyte is over the bundle's limit too")
    }
}
