import AppexBrowser
import AppexCore
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// appex-browser as a browser runs it, facing a peer that sends garbage: each bad message
/// gets an error, the host goes on serving, its memory stays bounded, and it ends when its
/// input does.
@Suite final class NativeHostTests {
    let test: TestHome

    init() throws {
        test = try TestHome()
    }

    deinit {
        for pid in test.daemonProcessIDs() { kill(pid, SIGKILL) }
    }

    @Test func garbageGetsErrorsAndTheHostKeepsServing() async throws {
        let host = try NativeHostProcess(environment: test.environment)
        try host.send(#"{"id": 1, "type": "hello"}"#)
        let hello = try #require(try await host.receive())
        #expect(hello["id"] as? Int == 1 && hello["host"] as? String == "appex-browser" && hello["protocol"] as? Int == 1)

        try host.send("\u{0}\u{1}garbage")
        #expect((try await host.receive()?["error"] as? String)?.contains("not JSON") == true)
        try host.write(NativeMessageDecoder.frame([0xff, 0xfe, 0x80]))
        #expect((try await host.receive()?["error"] as? String)?.contains("not JSON") == true)
        try host.send(#"{"id": 2, "type": "begin", "extension": "com.example.nothing", "context": {"kind": "page", "url": "https://a/"}}"#)
        let unknown = try #require(try await host.receive())
        #expect(unknown["id"] as? Int == 2 && (unknown["error"] as? String)?.contains("com.example.nothing is installed") == true, "\(unknown)")

        // A length that claims 100 MB, and the 100 MB behind it: dropped as it comes.
        var huge = [UInt8](repeating: 0x20, count: 100 << 20)
        huge.replaceSubrange(0..<4, with: NativeMessageDecoder.frame(Array(repeating: 0, count: (100 << 20) - 4)).prefix(4))
        try host.write(huge)
        #expect((try await host.receive()?["error"] as? String)?.contains("was dropped; the host takes at most 8388608") == true)

        try host.send(#"{"id": 3, "type": "hello"}"#)
        #expect(try await host.receive()?["id"] as? Int == 3, "still serving")
        // A sanitizer's shadow memory and quarantine of freed blocks say nothing of what the host holds.
        if !Sanitizers.areActive {
            #expect(host.peakResidentKiB < 96 * 1024, "the 100 MB message was never held: \(host.peakResidentKiB) KiB at most")
        }

        host.closeInput()
        #expect(try await host.receive() == nil)
        #expect(host.process.waitForExit(timeoutMilliseconds: 10_000), "the host ends with its input")
    }

    /// Ten thousand messages sent at once, faster than the host answers, are all answered,
    /// and the host holds no more of them than its window: its memory stays where it was.
    @Test func aFloodOfMessagesIsAnsweredWithinBoundedMemory() async throws {
        let host = try NativeHostProcess(environment: test.environment)
        try host.send(#"{"id": 0, "type": "hello"}"#)
        _ = try await host.receive()
        let before = host.peakResidentKiB
        let count = 10_000
        let flood = (1...count).flatMap { NativeMessageDecoder.frame(Array(#"{"id": \#($0), "type": "hello"}"#.utf8)) }
        let input = host.input
        let writing = Task { try await onThread { try input.write(flood) } }
        var answered = Set<Int>()
        while answered.count < count, let reply = try await host.receive() {
            if let id = reply["id"] as? Int { answered.insert(id) }
        }
        try await writing.value
        #expect(answered == Set(1...count))
        if !Sanitizers.areActive {
            #expect(host.peakResidentKiB < before + 16 * 1024, "\(before) KiB before, \(host.peakResidentKiB) KiB at most after")
        }
    }

    /// What a list offered is remembered, not trusted: the preprocessing file of an app
    /// updated since is read where the update put it, and appexd refuses an extension
    /// disabled since.
    @Test func whatAListOfferedIsCheckedAgain() async throws {
        let appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
        let textTools = try #require(try await AssembledSamples.apps().first { $0.lastPathComponent == "TextTools.app" })
        try #require(try await appex.run(["install", textTools.path]).status == 0)
        let pageColour = "com.example.texttools.pagecolour"
        let host = try NativeHostProcess(environment: test.environment)
        try host.send(#"{"id": 1, "type": "list", "context": {"kind": "page", "url": "http://127.0.0.1/a.html", "title": "A"}}"#)
        let listed = (try await host.receive()?["extensions"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String }
        try #require(listed?.contains(pageColour) == true, "\(listed ?? [])")

        // Installing again is an update: the bundle moves to a folder of its own, and the old one goes.
        try #require(try await appex.run(["install", textTools.path]).status == 0)
        try host.send(#"{"id": 2, "type": "script", "extension": "\#(pageColour)"}"#)
        let script = try #require(try await host.receive())
        #expect(script["file"] as? String == "PageColour.js" && (script["script"] as? String)?.contains("ExtensionPreprocessingJS") == true, "\(script)")

        try #require(try await appex.run(["disable", pageColour]).status == 0)
        try host.send(#"{"id": 3, "type": "begin", "extension": "\#(pageColour)", "context": {"kind": "page", "url": "http://127.0.0.1/a.html"}, "results": {"baseURI": "http://127.0.0.1/a.html"}}"#)
        var end = try #require(try await host.receive())
        if end["event"] as? String == "launching" { end = try #require(try await host.receive()) }
        #expect(end["id"] as? Int == 3 && (end["error"] as? String)?.contains("is disabled") == true, "\(end)")
    }

    /// The manifests allow only the Appex extension; a host started for another refuses too.
    @Test func anotherExtensionIsRefused() async throws {
        for arguments in [["chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/"], ["/home/u/.mozilla/native-messaging-hosts/org.appex.browser.json", "evil@example.com"]] {
            let host = try NativeHostProcess(arguments: arguments, environment: test.environment)
            #expect(try await host.receive() == nil, "\(arguments)")
            #expect(host.process.waitForExit(timeoutMilliseconds: 10_000))
            #expect(host.process.reap() == .exited(2))
        }
        let firefox = try NativeHostProcess(arguments: ["/home/u/.mozilla/native-messaging-hosts/org.appex.browser.json", BrowserExtension.firefoxID],
                                            environment: test.environment)
        try firefox.send(#"{"id": 1, "type": "hello"}"#)
        #expect(try await firefox.receive()?["id"] as? Int == 1, "Firefox's way of naming the caller")
    }
}
