import AppexBundles
import AppexCore
import AppexTesting
import Foundation
import Testing

/// Broken files get a clear diagnostic, never a crash.
@Suite final class MalformedInputTests {
    let folder: URL
    private let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
        folder = temporary.url
    }

    func inspect(infoPlist data: Data) throws -> BundleInspection {
        let url = try BundleBuilder.app("com.example.tool", in: folder).write()
        try data.write(to: url.appendingPathComponent("Info.plist"))
        return BundleValidator(types: .system).validate(appAt: url)
    }

    @Test func brokenXML() throws {
        let inspection = try inspect(infoPlist: Data("<?xml version=\"1.0\"?><plist><dict><key>CFBundleIdentifier</key><string>x</dict>".utf8))
        let problem = try #require(inspection.diagnostics.first)
        #expect(problem.code == "malformed-plist")
        #expect(problem.file == "Tool.app/Info.plist")
        #expect(inspection.bundle == nil)
    }

    @Test func binaryGarbage() throws {
        var generator = SystemRandomNumberGenerator()
        let garbage = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let inspection = try inspect(infoPlist: Data("bplist00".utf8) + garbage)
        #expect(inspection.diagnostics.map(\.code) == ["malformed-plist"])
    }

    /// A binary plist of `objects`, each encoded by hand, the first the top; offsets take 2 bytes
    /// and references 1.
    func binaryPlist(_ objects: [[UInt8]]) -> Data {
        var file = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects { offsets.append(file.count); file += object }
        let table = file.count
        for offset in offsets { file += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        file += [0, 0, 0, 0, 0, 0, 2, 1]
        for field in [objects.count, 0, table] { file += (0..<8).reversed().map { UInt8(truncatingIfNeeded: field >> ($0 * 8)) } }
        return Data(file)
    }

    /// Foundation on Linux crashes on a binary plist holding a set (fuzzing found it), so one
    /// is refused before Foundation reads it: `{"key": set(["x"])}`.
    @Test func aBinaryPlistHoldingASetIsRefusedNotACrash() throws {
        let inspection = try inspect(infoPlist: binaryPlist([[0xD1, 1, 2], [0x53] + Array("key".utf8), [0xC1, 3], [0x51, 0x78]]))
        let problem = try #require(inspection.diagnostics.first)
        #expect(problem.code == "malformed-plist")
        #expect(problem.message.contains("holding a set at byte 15"), "\(problem.message)")
    }

    /// A binary plist stores a date as any double, but XML writes four-digit years, so a date
    /// outside them would not survive being written again (fuzzing found it): `{"key": date}`.
    @Test(arguments: [(-5.362e176, false), (-63_113_904_001, false), (252_423_993_600, false), (.nan, false), (-63_113_904_000, true), (0, true)])
    func aDateOutsideTheYears1To9999IsRefused(_ seconds: Double, _ accepted: Bool) throws {
        let date = [0x33] + withUnsafeBytes(of: seconds.bitPattern.bigEndian, Array.init)
        let decoded = Result { try PropertyListValue(decoding: binaryPlist([[0xD1, 1, 2], [0x53] + Array("key".utf8), date])) }
        if accepted {
            #expect(try decoded.get()["key"] == .date(Date(timeIntervalSinceReferenceDate: seconds)))
        } else {
            #expect(throws: PropertyListError.self) { try decoded.get() }
            if case .failure(let error as PropertyListError) = decoded { #expect(error.reason.contains("at key outside the years 1 to 9999"), "\(error.reason)") }
        }
    }

    @Test func aTopLevelThatIsNotADictionary() throws {
        let inspection = try inspect(infoPlist: try PropertyListValue.array(["a"]).xmlData())
        #expect(inspection.diagnostics.map(\.code) == ["wrong-type"])
    }

    @Test func aFilePastTheSizeLimit() throws {
        let huge = Data(repeating: 0x20, count: PropertyListValue.maximumEncodedSize + 1)
        let inspection = try inspect(infoPlist: huge)
        #expect(inspection.diagnostics.map(\.code) == ["file-too-large"])
    }

    @Test func anEmptyFile() throws {
        #expect(try inspect(infoPlist: Data()).diagnostics.map(\.code) == ["malformed-plist"])
    }

    @Test func aBinaryPlistIsRead() throws {
        let url = try BundleBuilder.app("com.example.tool", in: folder).write()
        let info = try PropertyListValue(decoding: Data(contentsOf: url.appendingPathComponent("Info.plist")))
        let binary = try PropertyListSerialization.data(fromPropertyList: info.foundationObject, format: .binary, options: 0)
        try binary.write(to: url.appendingPathComponent("Info.plist"))
        #expect(BundleValidator(types: .system).validate(appAt: url).isValid)
    }

    @Test func anOpenStepPlistIsRead() throws {
        let url = try BundleBuilder.app("com.example.tool", in: folder).write()
        try Data("{ CFBundleIdentifier = com.example.tool; CFBundleExecutable = tool; CFBundleVersion = 1; }".utf8)
            .write(to: url.appendingPathComponent("Info.plist"))
        #expect(BundleValidator(types: .system).validate(appAt: url).isValid)
    }

    @Test func aBrokenStringsFileIsReported() throws {
        let url = try BundleBuilder.app("com.example.tool", in: folder).write()
        try FileManager.default.createDirectory(at: url.appendingPathComponent("fr.lproj"), withIntermediateDirectories: true)
        try Data("\"CFBundleDisplayName\" = \"Outil".utf8).write(to: url.appendingPathComponent("fr.lproj/InfoPlist.strings"))
        let inspection = BundleValidator(types: .system).validate(appAt: url)
        #expect(inspection.diagnostics.map(\.code) == ["malformed-strings"])
        #expect(inspection.diagnostics.first?.file == "Tool.app/fr.lproj/InfoPlist.strings")
    }

    @Test func malformedEntitlements() throws {
        var app = BundleBuilder.app("com.example.tool", in: folder)
        app.entitlements = ["com.apple.security.application-groups": ["group.com.example.tool", "../escape", 7]]
        let inspection = BundleValidator(types: .system).validate(appAt: try app.write())
        #expect(Set(inspection.diagnostics.map(\.code)) == ["wrong-type", "invalid-app-group"])
        #expect(inspection.bundle?.entitlements.applicationGroups == ["group.com.example.tool"])
    }

    @Test(.enabled(if: Corpus.isAvailable, "the shared corpus (../shared/corpus) is absent"))
    func theCorpusMalformedPlistsAreReportedNotCrashedOn() throws {
        let files = try Corpus.files(in: "plists-malformed")
        #expect(files.count == 2)
        for file in files {
            #expect(throws: PropertyListError.self) { try PropertyListValue(decoding: Data(contentsOf: file)) }
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "the shared corpus (../shared/corpus) is absent"))
    func everyCorpusInfoPlistReadsOrExplains() throws {
        var read = 0
        for file in try Corpus.files(in: "plists") where !file.lastPathComponent.hasSuffix(".entitlements") {
            let data = try Data(contentsOf: file)
            let plist: PropertyListValue
            do {
                plist = try PropertyListValue(decoding: data)
            } catch {
                // Some projects preprocess their Info.plist with cpp; the error must say so.
                #expect(error.reason.contains("C preprocessor directives"), "\(file.lastPathComponent): \(error)")
                continue
            }
            var diagnostics: [Diagnostic] = []
            let role: BundleInfo.Role = plist["NSExtension"] == nil ? .application : .appExtension
            let info = BundleInfo.read(plist, role: role, file: file.lastPathComponent, diagnostics: &diagnostics)
            // Real Info.plists hold $(PRODUCT_BUNDLE_IDENTIFIER) and the like until Xcode expands them.
            #expect(info != nil || diagnostics.contains { $0.code == "unexpanded-build-setting" || $0.code == "missing-key" }, "\(file.lastPathComponent): \(diagnostics)")
            if info != nil { read += 1 }
        }
        #expect(read > 0)
    }

    @Test(.enabled(if: Corpus.isAvailable, "the shared corpus (../shared/corpus) is absent"))
    func everyCorpusEntitlementsFileReads() throws {
        let files = try Corpus.files(in: "plists").filter { $0.pathExtension == "entitlements" }
        #expect(files.count == 13)
        for file in files {
            var diagnostics: [Diagnostic] = []
            let entitlements = Entitlements.read(try PropertyListValue(decoding: Data(contentsOf: file)), file: file.lastPathComponent, diagnostics: &diagnostics)
            // Real entitlements name groups through build settings until Xcode expands them.
            #expect(diagnostics.allSatisfy { $0.code == "unexpanded-build-setting" }, "\(file.lastPathComponent): \(diagnostics)")
            #expect(!entitlements.all.isEmpty)
        }
    }
}
