import AppexBundles
import AppexCore
import AppexTesting
import Foundation
import Testing

/// A property list is bounded by what its bytes are, not by what its references say: shared
/// references that stand for billions of values, a reference back to itself, and nesting
/// deep enough to take the reader's stack are each refused before Foundation builds anything,
/// with what was found and where.
@Suite(.timeLimit(.minutes(1))) struct PropertyListAmplificationTests {
    func refusal(_ data: Data) -> PropertyListError? {
        do {
            _ = try PropertyListValue(decoding: data)
            return nil
        } catch {
            return error
        }
    }

    /// The review's file: 40 levels of 16 references to the level below, 1.6 KB. Before the
    /// check, 5 levels took 2 s and 6 levels 38 s and 1.7 GB; 40 grew until killed.
    @Test(arguments: [6, 40])
    func sharedReferencesThatStandForMillionsOfValuesAreRefusedUnbuilt(levels: Int) throws {
        let data = HostilePropertyLists.sharedLevels(levels, width: 16)
        #expect(data.count < 1700)
        let error = try #require(refusal(data))
        #expect(error.code == .tooLarge, "\(error)")
        #expect(error.reason.contains("stands for more than 262144 values"), "\(error)")
        #expect(error.reason.contains("counting each shared array or dictionary as often as it is reached"), "\(error)")
    }

    @Test func sharingWithinTheLimitIsReadAsFoundationWritesIt() throws {
        // Four levels of 16: 69,905 values, as a list of that many would be.
        let value = try PropertyListValue(decoding: HostilePropertyLists.sharedLevels(4, width: 16))
        #expect(value.arrayValue?.count == 16)
        #expect(value.arrayValue?.first?.arrayValue?.first?.arrayValue?.first?.arrayValue?.first == .string("laugh"))
        // One string that a thousand entries share, as a property-list writer uniques it.
        let many = HostilePropertyLists.binary([.array(Array(repeating: 1, count: 1000)), .string("same")])
        #expect(try PropertyListValue(decoding: many).arrayValue?.count == 1000)
    }

    /// Foundation said "Unexpected character b at line 1", which says nothing of what is wrong.
    @Test func aReferenceBackToItselfIsRefusedWithWhatItIs() throws {
        let error = try #require(refusal(HostilePropertyLists.cycle))
        #expect(error.code == .malformed)
        #expect(error.reason.contains("whose object 0 (at byte 8) holds itself, through 2 level(s) of arrays and dictionaries"), "\(error)")
    }

    @Test(arguments: ["binary", "xml", "openstep"])
    func nestingPastTheLimitIsRefusedInEveryFormatAndNestingWithinItIsRead(format: String) throws {
        let error = try #require(refusal(HostilePropertyLists.nested(60_000, format: format)), "\(format)")
        #expect(error.reason.contains("nests arrays and dictionaries more than 256 deep"), "\(format): \(error)")
        var value = try PropertyListValue(decoding: HostilePropertyLists.nested(200, format: format))
        var depth = 0
        while let inner = value.arrayValue?.first {
            value = inner
            depth += 1
        }
        #expect(depth == 200 && value == .string("deep"), "\(format)")
    }

    @Test func aUTF16ListIsCheckedAsItsTextReads() throws {
        let text = String(decoding: HostilePropertyLists.nested(300, format: "openstep"), as: UTF8.self)
        let utf16 = try #require(text.data(using: .utf16))
        let error = try #require(refusal(utf16))
        #expect(error.reason.contains("more than 256 deep"), "\(error)")
    }

    /// Brackets inside OpenStep's strings and comments are text, not nesting.
    @Test func bracketsInStringsAndCommentsAreNotNesting() throws {
        let brackets = String(repeating: "(", count: 300)
        let text = "{ a = \"\(brackets)\"; /* \(brackets) */ b = '\(brackets)'; // \(brackets)\n }"
        let value = try PropertyListValue(decoding: Data(text.utf8))
        #expect(value.dictionaryValue?["a"] == .string(brackets))
    }

    @Test func anInfoPlistThatWouldExpandIsAnErrorOfTheBundleWithItsFile() throws {
        let temporary = try TemporaryDirectory()
        var app = BundleBuilder.app("com.example.laughs", in: temporary.url)
        app.addExtension("Share", identifier: "com.example.laughs.share", point: "com.apple.share-services",
                         attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]])
        let url = try app.write()
        try HostilePropertyLists.sharedLevels(40, width: 16).write(to: url.appendingPathComponent("PlugIns/Share.appex/Entitlements.plist"))
        let inspection = BundleValidator(types: .system).validate(appAt: url)
        let problem = try #require(inspection.diagnostics.first { $0.file.hasSuffix(".app/PlugIns/Share.appex/Entitlements.plist") },
                                   "\(inspection.diagnostics)")
        #expect(problem.code == "file-too-large" && problem.message.contains("stands for more than"), "\(problem)")
    }
}
