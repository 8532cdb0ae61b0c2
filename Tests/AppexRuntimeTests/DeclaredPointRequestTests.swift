import AppexCore
import AppexHost
import AppexItems
import AppexTesting
import AppexWire
import Foundation
import Testing

/// A point an app declares goes through the same code as the system's: a host finds another
/// app's extensions of it, appexd launches them under the declared policy, and a private
/// point's extensions of other apps are never run.
@Suite(.serialized) final class DeclaredPointRequestTests {
    let world: FaultWorld
    static let point = "com.example.editor.formatter"

    init() async throws {
        world = try FaultWorld()
    }

    /// Installs the editor, which declares the formatter point with `declaration` (over a
    /// name), then the fault app with extensions of it.
    func install(_ declaration: [String: PropertyListValue] = [:], faults: [String]) async throws {
        var editor = BundleBuilder.app("com.example.editor", name: "Editor", in: world.test.scratch.appendingPathComponent("editor"))
        editor.info["AppexExtensionPoints"] = .dictionary([Self.point: .dictionary(
            ["AppexExtensionPointName": "Formatter"].merging(declaration) { $1 })])
        try await world.install(editor)
        try await world.install(faults.map { FaultWorld.Plugin(fault: $0, point: Self.point) })
    }

    func textItem(_ text: String) -> NSExtensionItem {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: text)
        item.attachments = [NSItemProvider(object: text)]
        return item
    }

    @Test func aHostFindsAndRunsAnotherAppsExtensionOfADeclaredPoint() async throws {
        try await world.startDaemon()
        try await install(faults: ["echo"])
        let found = try await NSExtension.extensions(ofPoint: Self.point, matching: [textItem("hello")], home: world.test.home)
        #expect(found.map(\.identifier) == [FaultWorld.identifier("echo")])
        let baseline = world.baseline()
        let outcome = try await #require(found.first).request(withInputItems: [textItem("hello")])
        #expect(outcome.items?.first?.attributedContentText?.string == "hello", "\(outcome)")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func appexdEnforcesTheDeclaredRequestDeadline() async throws {
        try await world.startDaemon()
        try await install(["AppexRequestDeadline": .real(0.3)], faults: ["neverAnswers"])
        let outcome = try await world.extension("neverAnswers").request(withInputItems: [textItem("hello")])
        #expect(outcome.interruption?.reason == .requestDeadlineMissed(limitMilliseconds: 300), "\(outcome)")
    }

    @Test func appexdEnforcesTheDeclaredMemoryLimit() async throws {
        try await world.startDaemon()
        try await install(["AppexMemoryLimit": 40], faults: ["exceedsMemory"])
        let outcome = try await world.extension("exceedsMemory").request(withInputItems: [textItem("hello")])
        guard case .memoryLimitExceeded(let limit, _)? = outcome.interruption?.reason else {
            Issue.record("expected the memory limit, got \(outcome)")
            return
        }
        #expect(limit == UInt64(Int.mebibytes(40)))
    }

    @Test func anExtensionOfAPointMadePrivateIsRefusedWithTheReason() async throws {
        try await world.startDaemon()
        try await install(faults: ["echo"])
        let target = try await world.extension("echo")
        var editor = BundleBuilder.app("com.example.editor", name: "Editor", version: "2", in: world.test.scratch.appendingPathComponent("editor2"))
        editor.info["AppexExtensionPoints"] = .dictionary([Self.point: ["AppexExtensionPointName": "Formatter", "AppexVisibility": "private"]])
        try await world.install(editor)
        let error = await #expect(throws: ErrorInfo.self) { try await target.request(withInputItems: [self.textItem("hello")]) }
        #expect(error?.message == "\(FaultWorld.identifier("echo")) extends Formatter (\(Self.point)), which com.example.editor keeps private to its own extensions.")
        #expect(try await NSExtension.extensions(ofPoint: Self.point, matching: [textItem("hello")], home: world.test.home).isEmpty)
    }
}
