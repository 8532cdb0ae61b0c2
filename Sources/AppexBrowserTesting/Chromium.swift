import AppexCore
public import AppexSystem
public import Foundation
import Glibc

/// A real Chromium, headless, driven over its DevTools pipe: for the browser host's tests
/// and benchmarks (docs/browser.md, "Tests").
///
/// ```swift
/// let chromium = try await Chromium.launch(profile: folder, extensions: [BrowserExtension.folder], environment: ["APPEX_HOME": home])
/// defer { chromium.close() }
/// let page = try await chromium.open("http://127.0.0.1:\(port)/page.html")
/// let colour = try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self)
/// ```
public final class Chromium: Sendable {
    /// The browser's process.
    public let process: ProcessDescriptor
    public let pipe: DevToolsPipe
    /// The profile folder (`--user-data-dir`); the browser's standard error goes to
    /// `chromium.log` in it.
    public let profile: URL

    private init(process: ProcessDescriptor, pipe: DevToolsPipe, profile: URL) {
        self.process = process
        self.pipe = pipe
        self.profile = profile
    }

    /// The Chromium program, found as Appex finds its own programs (`CompanionProgram`):
    /// `APPEX_CHROMIUM`, or `chromium` beside this program or on `PATH`; nil if none.
    public static var executable: String? {
        CompanionProgram(name: "chromium", variable: "APPEX_CHROMIUM").locate()
    }

    /// Starts a headless Chromium with `profile` as its profile folder and the unpacked
    /// `extensions` loaded, with the given environment added to this process's.
    public static func launch(profile: URL, extensions: [URL], environment: [String: String] = [:]) async throws -> Chromium {
        guard let executable else { throw DevToolsError("Chromium is not installed: install Debian's chromium package, or set APPEX_CHROMIUM") }
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let toBrowser = try FileDescriptor.pipe()
        let fromBrowser = try FileDescriptor.pipe()
        let log = try FileDescriptor.open(profile.appendingPathComponent("chromium.log").path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
        let paths = extensions.map(\.path).joined(separator: ",")
        var arguments = [
            "--headless", "--no-sandbox", "--user-data-dir=\(profile.path)", "--remote-debugging-pipe",
            "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--password-store=basic",
            "--window-size=1000,700",
        ]
        if !extensions.isEmpty { arguments += ["--load-extension=\(paths)", "--disable-extensions-except=\(paths)"] }
        arguments.append("about:blank")
        let process = try ProcessLaunch(
            executable: executable, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, given in given },
            descriptors: [(log, 2), (toBrowser.read, 3), (fromBrowser.write, 4)], diesWithParent: true
        ).spawn()
        log.close()
        toBrowser.read.close()
        fromBrowser.write.close()
        let chromium = Chromium(process: process, pipe: DevToolsPipe(toBrowser: toBrowser.write, fromBrowser: fromBrowser.read), profile: profile)
        do {
            _ = try await chromium.pipe.call("Browser.getVersion")
        } catch {
            chromium.close()
            throw DevToolsError("Chromium did not start: \(error); its log: \(chromium.log.suffix(2000))")
        }
        return chromium
    }

    /// What the browser wrote to its standard error.
    public var log: String {
        (try? String(contentsOf: profile.appendingPathComponent("chromium.log"), encoding: .utf8)) ?? ""
    }

    /// Opens `url` in a new tab, waits for it to load, and returns it.
    public func open(_ url: String, width: Int? = nil, height: Int? = nil) async throws -> DevToolsTarget {
        let created = try await pipe.call("Target.createTarget", ["url": url])
        guard let targetID = created["targetId"] as? String else { throw DevToolsError("no target for \(url)") }
        let target = try await attach(targetID)
        if let width, let height {
            _ = try await target.call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
        }
        try await target.waitUntilLoaded()
        return target
    }

    /// The service worker of extension `id`, once it runs.
    public func serviceWorker(ofExtension id: String, timeout: Duration = .seconds(20)) async throws -> DevToolsTarget {
        try await target(ofType: "service_worker", urlPrefix: "chrome-extension://\(id)/", timeout: timeout)
    }

    /// The first target of `type` (`page`, `service_worker`, …) whose URL starts with
    /// `urlPrefix`, once there is one, such as a window the extension opened.
    public func target(ofType type: String, urlPrefix: String, timeout: Duration = .seconds(20)) async throws -> DevToolsTarget {
        let deadline = ContinuousClock.now + timeout
        while true {
            let targets = try await pipe.call("Target.getTargets")["targetInfos"] as? [[String: Any]] ?? []
            if let found = targets.first(where: { ($0["type"] as? String) == type && ($0["url"] as? String)?.hasPrefix(urlPrefix) == true }),
               let targetID = found["targetId"] as? String {
                return try await attach(targetID)
            }
            guard ContinuousClock.now < deadline else { throw DevToolsError("no \(type) at \(urlPrefix) after \(timeout); log: \(log.suffix(2000))") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Turns on "Allow User Scripts" for extension `id`, as the user does in its details on
    /// chrome://extensions, which is where it is done here too.
    public func allowUserScripts(forExtension id: String) async throws {
        let settings = try await open("chrome://extensions/?id=\(id)")
        defer { settings.close() }
        try await settings.waitFor("typeof chrome.developerPrivate?.updateExtensionConfiguration === 'function'")
        _ = try await settings.evaluate("""
            new Promise((resolve, reject) => chrome.developerPrivate.updateExtensionConfiguration(
                { extensionId: \(Self.literal(id)), userScriptsAccess: true },
                () => chrome.runtime.lastError ? reject(new Error(chrome.runtime.lastError.message)) : resolve(true)))
            """, as: Bool.self)
    }

    private func attach(_ targetID: String) async throws -> DevToolsTarget {
        let attached = try await pipe.call("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw DevToolsError("can't attach to \(targetID)") }
        return DevToolsTarget(pipe: pipe, targetID: targetID, session: session)
    }

    /// Closes the browser, and kills it if it doesn't close within 5 s.
    public func close() {
        let closing = Task { [pipe] in _ = try? await pipe.call("Browser.close") }
        process.end(graceMilliseconds: 5_000)
        closing.cancel()
    }

    /// `text` as a JavaScript string literal.
    public static func literal(_ text: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])) ?? Data("[\"\"]".utf8), as: UTF8.self)
            .dropFirst().dropLast().description
    }
}

/// A tab, an extension page or a service worker, attached over the DevTools pipe.
public struct DevToolsTarget: Sendable {
    let pipe: DevToolsPipe
    public let targetID: String
    public let session: String

    /// Sends a DevTools command to this target; throws if no answer comes within `deadline`.
    public func call(_ method: String, _ parameters: [String: any Sendable] = [:],
                     deadline: Duration = DevToolsPipe.answerDeadline) async throws -> DevToolsPipe.Object {
        try await pipe.call(method, parameters, session: session, deadline: deadline)
    }

    /// Evaluates `expression` here, awaiting it if it is a promise, and decodes its value;
    /// throws if that takes longer than `deadline`.
    public func evaluate<Value: Decodable>(_ expression: String, as type: Value.Type,
                                           deadline: Duration = DevToolsPipe.answerDeadline) async throws -> Value {
        let reply = try await call("Runtime.evaluate", [
            "expression": "(async () => JSON.stringify(await (\(expression))) ?? \"null\")()", "awaitPromise": true, "returnByValue": true,
        ], deadline: deadline)
        if let exception = reply["exceptionDetails"] as? [String: Any] {
            let detail = (exception["exception"] as? [String: Any])?["description"] as? String ?? exception["text"] as? String ?? "exception"
            throw DevToolsError("\(expression.prefix(120)) threw: \(detail)")
        }
        guard let json = (reply["result"] as? [String: Any])?["value"] as? String else {
            throw DevToolsError("\(expression.prefix(120)) gave no JSON value")
        }
        return try JSONDecoder().decode(Value.self, from: Data(json.utf8))
    }

    /// Waits until `condition`, a JavaScript expression, is true here.
    public func waitFor(_ condition: String, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        var last = "false"
        while true {
            do {
                // One evaluation that hangs (a worker stopping under it) must not use up the whole wait.
                if try await evaluate("Boolean(\(condition))", as: Bool.self, deadline: min(timeout, .seconds(5))) { return }
                last = "false"
            } catch {
                last = "\(error)"
            }
            guard ContinuousClock.now < deadline else { throw DevToolsError("\(condition) was not true within \(timeout); the last try gave: \(last)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until the document has loaded.
    public func waitUntilLoaded() async throws {
        try await waitFor("document.readyState === 'complete'")
    }

    /// A PNG of what the target shows.
    public func screenshot() async throws -> Data {
        let reply = try await call("Page.captureScreenshot", ["format": "png"])
        guard let encoded = reply["data"] as? String, let png = Data(base64Encoded: encoded) else { throw DevToolsError("no screenshot") }
        return png
    }

    /// Closes the target.
    public func close() {
        let pipe = pipe
        let targetID = targetID
        Task { _ = try? await pipe.call("Target.closeTarget", ["targetId": targetID]) }
    }
}
