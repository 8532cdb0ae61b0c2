import AppexBenchmarkSupport
import AppexBrowser
import AppexBrowserTesting
import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import AppexSystem
import AppexTestServer
import AppexTesting
import Benchmark
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The browser host, each beside its baseline in the same run:
// - the native host's round trip (a hello, framed, through appex-browser's pipes), beside the
//   same frame through `cat`: what the host adds to the pipe;
// - a hello from the extension's service worker, through Chromium's native messaging and the
//   host, beside a no-op evaluated in the service worker: what the browser's messaging adds;
// - Page Colour's `script` and `begin` through appex-browser's pipes, after a `list`, beside
//   the host library's request below: what the host adds to a request;
// - Page Colour from the click in the popup to `finalize` in the page, through Chromium, beside
//   the same request (the web page's items, and the finalize argument read back) from the
//   host library, as the terminal hosts make it. The extension's own timings say where the
//   browser's time goes; teardown prints their medians (BENCHMARKS.md).

/// A native host or `cat`, on pipes.
final class PipedProcess {
    let process: ProcessDescriptor
    private let input: FileDescriptor
    private let output: FileDescriptor
    private var decoder = NativeMessageDecoder()

    init(_ executable: String, arguments: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let toChild = try FileDescriptor.pipe()
        let fromChild = try FileDescriptor.pipe()
        process = try ProcessLaunch(executable: executable, arguments: arguments, environment: environment,
                                    descriptors: [(toChild.read, 0), (fromChild.write, 1)]).spawn()
        toChild.read.close()
        fromChild.write.close()
        input = toChild.write
        output = fromChild.read
    }

    /// Writes `frame` and reads back one framed message.
    func roundTrip(_ frame: [UInt8]) throws -> [UInt8] {
        try input.write(frame)
        return try next()
    }

    /// Reads the next framed message.
    func next() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if case .message(let message)? = decoder.next() { return message }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(output.rawValue, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchmarkFailure("the process closed its output") }
            decoder.append(buffer[..<count])
        }
    }

    func close() {
        input.close()
        output.close()
        process.end(graceMilliseconds: 5_000)
    }
}

/// A home with Page Colour installed, the native host set up for a Chromium profile, and that
/// Chromium running headless with the extension, over a page on loopback.
final class BrowserFixture {
    let runtime: RuntimeHome
    let server: LoopbackHTTPServer
    let chromium: Chromium
    let worker: DevToolsTarget
    let page: DevToolsTarget
    let tab: Int
    let pageURL: String
    let profile: URL

    static let pageColour = "com.example.texttools.pagecolour"

    init() async throws {
        let runtime = try RuntimeHome()
        let profile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appex-bench-chromium-\(getpid())")
        try? FileManager.default.removeItem(at: profile)
        try Self.installPageColour(into: runtime, from: profile.appendingPathComponent("bundles"))
        let setup = BrowserSetup(userDataDirectory: profile.appendingPathComponent("chromium"), appex: runtime.home)
        _ = try setup.install([.chromium], hostPath: try BuiltProducts.executable("appex-browser").path)
        let server = try await LoopbackHTTPServer.start()
        let chromium = try await Chromium.launch(profile: profile.appendingPathComponent("chromium"), extensions: [setup.chromiumExtensionFolder],
                                                 environment: ["APPEX_HOME": runtime.home.dataDirectory.path])
        try await chromium.allowUserScripts(forExtension: BrowserExtension.chromiumID)
        let worker = try await chromium.serviceWorker(ofExtension: BrowserExtension.chromiumID)
        server.serve("<!doctype html><html><head><title>Bench</title></head><body><p>Bench</p></body></html>", at: "/bench.html")
        let pageURL = "http://127.0.0.1:\(server.port)/bench.html"
        let page = try await chromium.open(pageURL)
        let query = "(await chrome.tabs.query({})).find((tab) => tab.url === \(Chromium.literal(pageURL)))?.id ?? -1"
        try await worker.waitFor("(\(query)) >= 0")
        tab = try await worker.evaluate(query, as: Int.self)
        self.runtime = runtime
        self.profile = profile
        self.server = server
        self.chromium = chromium
        self.worker = worker
        self.pageURL = pageURL
        self.page = page
    }

    /// Installs an app with Page Colour into `runtime`'s home, from a bundle written in `folder`.
    static func installPageColour(into runtime: RuntimeHome, from folder: URL) throws {
        _ = try Registry(home: runtime.home).install(appAt: try pageColourApp(in: folder))
    }

    /// An app with Page Colour: the sample's program and script, in a bundle of its own.
    static func pageColourApp(in folder: URL) throws -> URL {
        var app = BundleBuilder.app("com.example.texttools", name: "TextTools", in: folder)
        app.addExtension("PageColour", identifier: pageColour, point: ExtensionPoint.action.id,
                         attributes: ["NSExtensionJavaScriptPreprocessingFile": "PageColour",
                                      "NSExtensionActivationRule": ["NSExtensionActivationSupportsWebPageWithMaxCount": 1]],
                         executable: try BuiltProducts.executable("PageColour"))
        if case .dictionary(var manifest)? = app.plugIns[0].info["NSExtension"] {
            manifest["NSExtensionPrincipalClass"] = "PageColour.ActionRequestHandler"
            app.plugIns[0].info["NSExtension"] = .dictionary(manifest)
        }
        let url = try app.write()
        let resources = try FileManager.default.contentsOfDirectory(atPath: BuiltProducts.folder.path).first { $0.hasSuffix("_AppexSamples.resources") }
        guard let resources else { throw BenchmarkFailure("the samples' resources were not built beside the benchmark") }
        let script = BuiltProducts.folder.appendingPathComponent("\(resources)/TextTools.app/PlugIns/PageColour.appex/PageColour.js")
        try FileManager.default.copyItem(at: script, to: url.appendingPathComponent("PlugIns/PageColour.appex/PageColour.js"))
        return url
    }

    func stop() async {
        chromium.close()
        await server.stop()
        await runtime.stop()
        try? FileManager.default.removeItem(at: profile)
    }
}

nonisolated(unsafe) var piped: PipedProcess?
nonisolated(unsafe) var pipedHome: RuntimeHome?
nonisolated(unsafe) var fixture: BrowserFixture?
/// The extension's timings of each Page Colour run, by step.
nonisolated(unsafe) var timings: [String: [Double]] = [:]

let hello = NativeMessageDecoder.frame(Array(#"{"id":1,"type":"hello"}"#.utf8))

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], warmupIterations: 20, maxDuration: .seconds(5), maxIterations: 5_000)

    Benchmark("Native host round trip: a hello through appex-browser's pipes") { _ in
        guard try piped!.roundTrip(hello).count > 20 else { throw BenchmarkFailure("no hello") }
    } setup: {
        piped = try PipedProcess(try BuiltProducts.executable("appex-browser").path, arguments: [BrowserExtension.chromiumOrigin])
    } teardown: {
        piped?.close()
        piped = nil
    }

    Benchmark("Native host round trip baseline: the same frame through cat") { _ in
        guard try piped!.roundTrip(hello).count == hello.count - 4 else { throw BenchmarkFailure("cat changed the frame") }
    } setup: {
        piped = try PipedProcess("/bin/cat")
    } teardown: {
        piped?.close()
        piped = nil
    }

    let browser = Benchmark.Configuration(metrics: [.wallClock], warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 500)

    Benchmark("Browser: a hello from the service worker, through Chromium's native messaging", configuration: browser) { _ in
        _ = try await fixture!.worker.evaluate("appex.hello().then((reply) => reply.protocol)", as: Int.self)
    } setup: {
        fixture = try await BrowserFixture()
    } teardown: {
        await fixture?.stop()
        fixture = nil
    }

    Benchmark("Browser baseline: a no-op evaluated in the service worker", configuration: browser) { _ in
        _ = try await fixture!.worker.evaluate("Promise.resolve(1)", as: Int.self)
    } setup: {
        fixture = try await BrowserFixture()
    } teardown: {
        await fixture?.stop()
        fixture = nil
    }

    let action = Benchmark.Configuration(metrics: [.wallClock], warmupIterations: 3, maxDuration: .seconds(20), maxIterations: 100)

    Benchmark("Page Colour, click to finalize, through Chromium", configuration: action) { benchmark in
        let fixture = fixture!
        for _ in benchmark.scaledIterations {
            _ = try await fixture.page.evaluate("(document.body.style.backgroundColor = '') || true", as: Bool.self)
            let popup = try await fixture.chromium.open("chrome-extension://\(BrowserExtension.chromiumID)/popup.html?tab=\(fixture.tab)", width: 420, height: 480)
            try await popup.waitFor("document.getElementById('extensions').hidden === false")
            benchmark.startMeasurement()
            let outcome = try await popup.evaluate("""
                new Promise((resolve) => {
                    new MutationObserver(() => document.body.dataset.outcome && resolve(document.body.dataset.outcome))
                        .observe(document.body, { attributes: true });
                    document.querySelector('[data-identifier="\(BrowserFixture.pageColour)"]').click();
                })
                """, as: String.self)
            benchmark.stopMeasurement()
            guard outcome == "completed" else { throw BenchmarkFailure("Page Colour \(outcome)") }
            let steps = try await popup.evaluate("JSON.parse(document.body.dataset.timings)", as: [String: Double].self)
            for (step, milliseconds) in steps { timings[step, default: []].append(milliseconds) }
            popup.close()
        }
    } setup: {
        fixture = try await BrowserFixture()
        timings = [:]
    } teardown: {
        let medians = timings.sorted { $0.key < $1.key }.map { step, values in
            "\(step) \(String(format: "%.2f", values.sorted()[values.count / 2])) ms"
        }
        FileHandle.standardError.write(Data("Page Colour through Chromium, the extension's median timings: \(medians.joined(separator: ", "))\n".utf8))
        await fixture?.stop()
        fixture = nil
    }

    Benchmark("Page Colour through appex-browser's pipes: script, then begin", configuration: action) { benchmark in
        let host = piped!
        let page = "http://127.0.0.1:1/bench.html"
        let script = NativeMessageDecoder.frame(Array(#"{"id":2,"type":"script","extension":"\#(BrowserFixture.pageColour)"}"#.utf8))
        let begin = NativeMessageDecoder.frame(Array(#"""
            {"id":3,"type":"begin","extension":"\#(BrowserFixture.pageColour)","context":{"kind":"page","url":"\#(page)","title":"Bench"},"results":{"baseURI":"\#(page)"}}
            """#.utf8))
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            guard String(decoding: try host.roundTrip(script), as: UTF8.self).contains(#""file":"PageColour.js""#) else { throw BenchmarkFailure("no script") }
            guard String(decoding: try host.roundTrip(begin), as: UTF8.self).contains("launching"),
                  String(decoding: try host.next(), as: UTF8.self).contains(#""finalize":{"bgColor""#)
            else { throw BenchmarkFailure("Page Colour did not complete with a finalize argument") }
            benchmark.stopMeasurement()
        }
    } setup: {
        let runtime = try RuntimeHome()
        try BrowserFixture.installPageColour(into: runtime, from: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appex-bench-pipes-\(getpid())"))
        var environment = ProcessInfo.processInfo.environment
        environment["APPEX_HOME"] = runtime.home.dataDirectory.path
        let host = try PipedProcess(try BuiltProducts.executable("appex-browser").path, arguments: [BrowserExtension.chromiumOrigin], environment: environment)
        let list = NativeMessageDecoder.frame(Array(#"{"id":1,"type":"list","context":{"kind":"page","url":"http://127.0.0.1:1/bench.html","title":"Bench"}}"#.utf8))
        guard String(decoding: try host.roundTrip(list), as: UTF8.self).contains(BrowserFixture.pageColour) else { throw BenchmarkFailure("Page Colour is not listed") }
        pipedHome = runtime
        piped = host
    } teardown: {
        piped?.close()
        piped = nil
        await pipedHome?.stop()
        pipedHome = nil
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appex-bench-pipes-\(getpid())"))
    }

    Benchmark("Page Colour baseline: the same request from the host library", configuration: action) { benchmark in
        let fixture = fixture!
        let pageColour = try await NSExtension.extension(withIdentifier: BrowserFixture.pageColour, home: fixture.runtime.home)
        let context = PageContext(kind: .page, pageURL: URL(string: fixture.pageURL)!, title: "Bench")
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            guard case .completed(let returned) = try await pageColour.request(withInputItems: PageItems.items(for: context, results: ["baseURI": .string(fixture.pageURL)])),
                  try await BrowserReply.PageUpdate.reading(returned).finalize != nil
            else { throw BenchmarkFailure("Page Colour did not complete with a finalize argument") }
            benchmark.stopMeasurement()
        }
    } setup: {
        fixture = try await BrowserFixture()
    } teardown: {
        await fixture?.stop()
        fixture = nil
    }
}
