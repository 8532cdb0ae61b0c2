import AppexBrowser
import AppexBrowserTesting
import AppexCore
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// Preprocessing files and pages that misbehave, through a real Chromium: each failure is
/// shown in the popup, the extension is never started, and the page is left as it was. The
/// files are installed in an app of their own, each beside the Page Colour executable.
@Suite(.needsChromium)
final class HostilePageTests {
    static let page = "<!doctype html><html><head><title>Target</title></head><body><p>Target</p></body></html>"

    /// A page that defines its own ExtensionPreprocessingJS first, locked, and a completion
    /// function for every object, as a page would to feed an extension results of its own.
    static let lockingPage = """
        <!doctype html><html><head><title>Hostile</title><script>
        Object.defineProperty(window, "ExtensionPreprocessingJS", { configurable: false, writable: false,
            value: { run: (p) => p.completionFunction({ baseURI: "https://evil.example/#colour=green" }), finalize: () => {} } });
        Object.defineProperty(Object.prototype, "completionFunction", { set() {}, get() { return () => {}; } });
        window.Action = function() {};
        </script></head><body><p>Hostile</p></body></html>
        """

    /// The hostile scripts, by extension name.
    static let scripts: [String: String] = [
        "Throws": #"var ExtensionPreprocessingJS = { run: function() { throw new TypeError("no page for you"); } };"#,
        "Silent": #"var ExtensionPreprocessingJS = { run: function(parameters) { window.kept = parameters; } };"#,
        "NotPlist": #"var ExtensionPreprocessingJS = { run: function(p) { p.completionFunction({ title: document.title, callback: function() {} }); } };"#,
        "NullValue": #"var ExtensionPreprocessingJS = { run: function(p) { p.completionFunction({ missing: null }); } };"#,
        "Twice": """
            var ExtensionPreprocessingJS = {
                run: function(p) {
                    p.completionFunction({ baseURI: "https://example.com/#colour=blue" });
                    p.completionFunction({ baseURI: "https://example.com/#colour=green" });
                },
                finalize: function(a) { document.body.style.backgroundColor = a.bgColor; }
            };
            """,
        "Huge": #"var ExtensionPreprocessingJS = { run: function(p) { p.completionFunction({ text: "x".repeat(100 * 1024 * 1024) }); } };"#,
        "NoRun": #"var ExtensionPreprocessingJS = { finalise: function() {} };"#,
        "Syntax": #"var ExtensionPreprocessingJS = { run: function(p) { p.completionFunction({ a: 1 }) ;"#,
        "Evaluates": #"var ExtensionPreprocessingJS = { run: function(p) { p.completionFunction({ sum: eval("1 + 1") }); } };"#,
        "Counter": """
            globalThis.runs = (globalThis.runs || 0) + 1;
            var ExtensionPreprocessingJS = {
                run: function(p) { p.completionFunction({ baseURI: "https://example.com/#colour=" + (globalThis.runs === 1 ? "blue" : "green") }); },
                finalize: function(a) { document.body.style.backgroundColor = a.bgColor; }
            };
            """,
    ]

    /// Installs an app whose Action extensions run the hostile scripts; returns where the
    /// installed Counter.js is.
    @discardableResult
    static func installHostileApp(in session: BrowserSession) async throws -> URL {
        var app = BundleBuilder.app("com.example.hostile", name: "Hostile", in: session.test.scratch)
        let executable = try await onThread { try SamplePackage.products() }.appendingPathComponent("PageColour")
        for name in scripts.keys.sorted() {
            app.addExtension(name, identifier: "com.example.hostile.\(name.lowercased())", point: ExtensionPoint.action.id,
                             attributes: ["NSExtensionJavaScriptPreprocessingFile": .string(name),
                                          "NSExtensionActivationRule": ["NSExtensionActivationSupportsWebPageWithMaxCount": 1]],
                             executable: executable)
            if case .dictionary(var manifest)? = app.plugIns[app.plugIns.count - 1].info["NSExtension"] {
                manifest["NSExtensionPrincipalClass"] = "PageColour.ActionRequestHandler"
                app.plugIns[app.plugIns.count - 1].info["NSExtension"] = .dictionary(manifest)
            }
        }
        let url = try app.write()
        for (name, source) in scripts {
            try source.write(to: url.appendingPathComponent("PlugIns/\(name).appex/\(name).js"), atomically: true, encoding: .utf8)
        }
        let installed = try await session.appex.run(["install", url.path])
        try #require(installed.status == 0, "\(installed.standardError)")
        let files = FileManager.default.enumerator(at: session.test.home.applicationsDirectory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try #require(files.first { $0.lastPathComponent == "Counter.js" })
    }

    /// Runs the hostile extension `name` on a fresh page; returns the popup's outcome and
    /// status, and the page's background colour after it.
    func run(_ name: String, in session: BrowserSession) async throws -> (outcome: String, status: String, colour: String) {
        let (page, tab) = try await session.open(Self.page, at: "/\(name).html")
        let popup = try await session.popup(for: tab)
        let (outcome, status) = try await session.choose("com.example.hostile.\(name.lowercased())", in: popup)
        let colour = try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self)
        popup.close()
        page.close()
        return (outcome, status, colour)
    }

    /// The extensions that ran: their processes, as `appex ps` lists them.
    func launched(in session: BrowserSession) async throws -> [String] {
        let listed = try await session.appex.run(["ps", "--json"])
        let processes = (try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]]) ?? []
        return processes.compactMap { $0["extensionIdentifier"] as? String }
    }

    @Test func eachBrokenScriptIsReportedAndTheExtensionNeverStarts() async throws {
        let session = try await BrowserSession()
        try await Self.installHostileApp(in: session)
        let expected = [
            "Throws": "ExtensionPreprocessingJS.run threw TypeError: no page for you",
            "NotPlist": "results.callback is a function",
            "NullValue": "results.missing is null; property lists have no null",
            "Huge": "at most 4194304 go to the extension",
            "NoRun": "ExtensionPreprocessingJS has no run function",
            "Syntax": "Syntax.js",
            "Evaluates": "EvalError",
        ]
        for (name, message) in expected.sorted(by: { $0.key < $1.key }) {
            let (outcome, status, colour) = try await run(name, in: session)
            #expect(outcome == "error", "\(name): \(status)")
            #expect(status.contains(message), "\(name): \(status)")
            #expect(colour == "rgba(0, 0, 0, 0)", "\(name) left the page as it was")
        }
        #expect(try await launched(in: session).isEmpty, "no extension was started")
    }

    /// A script that never calls its completion function is given up on at the deadline the
    /// popup states.
    @Test func aScriptThatNeverCompletesMeetsTheDeadline() async throws {
        let session = try await BrowserSession()
        try await Self.installHostileApp(in: session)
        let (outcome, status, _) = try await run("Silent", in: session)
        #expect(outcome == "error")
        #expect(status.contains("did not call completionFunction within 10 s"), "\(status)")
        #expect(try await launched(in: session).isEmpty)
    }

    /// Only the first call of the completion function counts: the extension gets blue, and
    /// finalize paints the page blue, not green.
    @Test func onlyTheFirstCompletionCounts() async throws {
        let session = try await BrowserSession()
        try await Self.installHostileApp(in: session)
        let (outcome, status, colour) = try await run("Twice", in: session)
        #expect(outcome == "completed", "\(status)")
        #expect(colour == "rgb(0, 0, 255)")
        #expect(try await launched(in: session).contains("com.example.hostile.twice"), "the extension ran, and waits for its next request")
    }

    /// Each run of a file is in a world of its own: a second run on the same page finds none
    /// of the first's globals, so nothing one run leaves behind reaches the next.
    @Test func eachRunStartsInAFreshWorld() async throws {
        let session = try await BrowserSession()
        try await Self.installHostileApp(in: session)
        let (page, tab) = try await session.open(Self.page, at: "/counter.html")
        for _ in 1...2 {
            let popup = try await session.popup(for: tab)
            let (outcome, status) = try await session.choose("com.example.hostile.counter", in: popup)
            #expect(outcome == "completed", "\(status)")
            #expect(try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(0, 0, 255)")
            _ = try await page.evaluate("document.body.style.backgroundColor = ''", as: String.self)
            popup.close()
        }
    }

    /// A preprocessing file gone from the installed bundle is reported, and nothing runs.
    @Test func aFileGoneFromTheBundleIsReported() async throws {
        let session = try await BrowserSession()
        let script = try await Self.installHostileApp(in: session)
        try FileManager.default.removeItem(at: script)
        let (outcome, status, colour) = try await run("Counter", in: session)
        #expect(outcome == "error")
        #expect(status.contains("Counter.js is not in the bundle"), "\(status)")
        #expect(colour == "rgba(0, 0, 0, 0)")
        #expect(try await launched(in: session).isEmpty)
    }

    /// The popup asks for the files of what it lists as it shows them; one that could not
    /// be read then is asked for again at the click, not reported from the stale answer.
    @Test func aFileBackByTheClickIsRead() async throws {
        let session = try await BrowserSession()
        let script = try await Self.installHostileApp(in: session)
        let aside = script.deletingLastPathComponent().appendingPathComponent("Counter.aside")
        try FileManager.default.moveItem(at: script, to: aside)
        let (page, tab) = try await session.open(Self.page, at: "/counter.html")
        let popup = try await session.popup(for: tab)
        #expect(try await session.worker.evaluate("appex.prefetched('com.example.hostile.counter')", as: String.self) == "failed")
        try FileManager.default.moveItem(at: aside, to: script)
        let (outcome, status) = try await session.choose("com.example.hostile.counter", in: popup)
        #expect(outcome == "completed", "\(status)")
        #expect(try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(0, 0, 255)")
    }

    /// A page that defines its own ExtensionPreprocessingJS, locked against being replaced,
    /// and a completion function of its own, changes nothing: the file runs in a world of
    /// its own, where the page's globals are not.
    @Test func aPageCannotReplaceTheScriptOrItsCompletion() async throws {
        let session = try await BrowserSession()
        let (page, tab) = try await session.open(Self.lockingPage, at: "/hostile.html")
        _ = try await page.evaluate("location.hash = 'colour=blue'", as: String.self)
        let popup = try await session.popup(for: tab)
        let (outcome, status) = try await session.choose("com.example.texttools.pagecolour", in: popup)
        #expect(outcome == "completed", "\(status)")
        #expect(try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(0, 0, 255)",
                "the extension got the real page's base URI, and finalize ran")
        #expect(try await page.evaluate("ExtensionPreprocessingJS.run.toString().includes('evil')", as: Bool.self), "the page's own object is untouched")
    }
}
