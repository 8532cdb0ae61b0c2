import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import AppexShare
import AppexWire
import Foundation

extension Demo {
    /// Shares a text with a link, then a text file, to Add to Notes through its compose
    /// sheet, as `appex share --to` does without a terminal; the Notes app reads both back
    /// from its group. The first request starts appexd.
    func shareToNotes() async throws {
        heading("Share a text and a file to Notes: appexd launches Add to Notes in its own process (appex share)")
        try await describingFailures {
            let notes = try await NSExtension.extension(withIdentifier: "com.example.notes.share", home: registry.home)
            let shared = Self.textItem("Buy oat milk")
            shared.attachments = (shared.attachments ?? []) + [NSItemProvider(object: URL(string: "https://www.swift.org")!)]
            try await step("share a text (launches Add to Notes)") {
                try await share(notes, [shared], label: "a text and a link, through its compose sheet, filed into the Notes app group")
            }
            let list = root.appendingPathComponent("Groceries.txt")
            try "Groceries: oat milk, bread, apples\nand coffee for Friday\n".write(to: list, atomically: true, encoding: .utf8)
            let file = NSExtensionItem()
            file.attachments = [NSItemProvider(contentsOf: list)!]
            try await step("share a file") {
                try await share(notes, [file], label: "a text file, read through its descriptor; the sheet's text starts empty")
            }
        }
        try readBackInTheNotesApp()
    }

    /// Runs Actions on a text and a file, and hands a large image to a Share extension
    /// without copying it.
    func runActions() async throws {
        heading("Run actions: each extension in its own process, reused for the next request (appex action)")
        try await describingFailures {
            let home = registry.home
            let uppercase = try await NSExtension.extension(withIdentifier: "com.example.notes.uppercase", home: home)
            try await step("action on a text (cold)") {
                try await request(uppercase, [Self.textItem("hello from the demo")], label: "first request (launches the extension)")
            }
            try await step("action on a text (warm)") {
                try await request(uppercase, [Self.textItem("hello again")], label: "second request (the same process, warm)")
            }
            let wordCount = try await NSExtension.extension(withIdentifier: "com.example.texttools.wordcount", home: home)
            try await request(wordCount, [Self.textItem("An Action transforms what it is given and returns it")], label: "a text action")

            let photo = root.appendingPathComponent("Sunset.png")
            try Data(count: 4 << 20).write(to: photo)
            let item = NSExtensionItem()
            item.attachments = [NSItemProvider(contentsOf: photo)!]
            let checksum = try await NSExtension.extension(withIdentifier: "com.example.texttools.checksum", home: home)
            try await step("action on a 4 MiB file") {
                try await request(checksum, [item], label: "a file action: the image's SHA-256, read through its descriptor")
            }
            let album = try await NSExtension.extension(withIdentifier: "com.example.photos.share", home: home)
            try await request(album, [item], label: "a 4 MiB image, handed over as a descriptor")
        }
    }

    /// Lists the extension processes appexd runs now, as `appex ps` does.
    func listProcesses() async throws {
        heading("The extension processes appexd runs now (appex ps)")
        try await describingFailures {
            let daemon = try await DaemonClient.connect(home: registry.home, role: .cli, startIfNeeded: false)
            defer { daemon.close() }
            for process in try await daemon.processes() {
                print("  pid \(process.pid)  \(process.extensionIdentifier)  \(process.residentBytes >> 20) MiB  \(process.state)")
            }
        }
    }

    /// Runs `body`, turning the host's errors into the demo's failure.
    func describingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ErrorInfo {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(error)")
        }
    }

    /// Runs the installed Notes app's `notes list`: appexd gives it the group because its
    /// executable is the installed app's, and it reads what the extension wrote there.
    func readBackInTheNotesApp() throws {
        print("  Notes app — `notes list`, run from its installed bundle, reads the group back:")
        try runInstalledApp("com.example.notes", ["list"])
    }

    /// Runs the installed app `identifier`'s executable with `arguments`, and prints what it prints.
    func runInstalledApp(_ identifier: String, _ arguments: [String]) throws {
        guard let app = try RegistryAccess.run({ () throws(RegistryError) in try registry.app(identifier) }) else { return }
        let process = Process()
        process.executableURL = app.executableURL
        process.arguments = arguments
        process.environment = registry.home.selectingEnvironment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        for line in text.split(separator: "\n") { print("    \(line)") }
    }

    private func request(_ target: NSExtension, _ items: [NSExtensionItem], label: String) async throws {
        let started = ContinuousClock.now
        let outcome = try await target.request(withInputItems: items)
        let elapsed = ContinuousClock.now - started
        let report = await RequestReport.make(target.identifier, outcome, took: elapsed, savingFilesIn: root.appendingPathComponent("returned"))
        print("  \(target.summary.displayName) — \(label):")
        for line in report.lines(indent: "    ") { print(line) }
    }

    /// Shares through the extension's compose sheet, as `appex share --to` does without a
    /// terminal: shows the sheet it sends, and posts it as it is.
    private func share(_ target: NSExtension, _ items: [NSExtensionItem], label: String) async throws {
        let started = ContinuousClock.now
        let session = try await ComposeSession.begin(target, items: items)
        print("  \(target.summary.displayName) — \(label):")
        guard let sheet = await session.sheet(within: .seconds(30)) else {
            session.cancel()
            throw CommandFailure(status: 3, "\(target.summary.displayName) showed no compose sheet: \(session.failure ?? "no answer in 30 s")")
        }
        let remaining = sheet.charactersRemaining.map { ", \($0) characters left" } ?? ""
        let settings = sheet.configurationItems.map { "\($0.title): \($0.value)" }.joined(separator: ", ")
        print("    compose sheet: \"\(sheet.contentText.escapingControlCharacters)\"\(remaining)\(settings.isEmpty ? "" : "; " + settings.escapingControlCharacters); Post \(sheet.isContentValid ? "enabled" : "disabled")")
        try session.send(.post)
        let outcome = await session.outcome()
        let report = await RequestReport.make(target.identifier, outcome, took: ContinuousClock.now - started, savingFilesIn: root.appendingPathComponent("returned"))
        for line in report.lines(indent: "    ") { print(line) }
    }

    private static func textItem(_ text: String) -> NSExtensionItem {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: text)
        item.attachments = [NSItemProvider(object: text)]
        return item
    }

    /// Stops the demo home's appexd, if it runs, and waits (boundedly) for it to exit, so
    /// that nothing writes into the home while it is removed.
    func stopDaemon() async {
        await DaemonClient.stopDaemon(home: registry.home)
    }
}
