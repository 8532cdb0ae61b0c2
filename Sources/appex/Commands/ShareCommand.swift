import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import AppexShare
import AppexWire
import ArgumentParser
import Foundation

/// `appex share`: the share sheet in a terminal. It lists the Share and Action extensions
/// that accept the content, shows the chosen Share extension's compose sheet, drawn here
/// from the state the extension sends, and posts or cancels; a chosen Action runs as
/// `appex action` runs it.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share files, text or URLs through a Share extension's compose sheet, or run an Action on them.",
        discussion: """
            The Share and Action extensions whose activation rules accept the content are listed in the user's \
            order, the recent picks first, to pick one with the arrow keys or its number; --to ID skips the list. \
            A Share extension shows its compose sheet: type to edit the text, Tab or the arrows move to the \
            configuration items and the buttons, Enter chooses, Ctrl-S posts and Esc cancels. Without a \
            terminal, or with --json, nothing is asked: pass --to, and the content is posted as it is if the \
            extension accepts it. Exit status: 0 posted or completed, 1 cancelled or not accepted, 2 could not \
            start, 3 interrupted or failed.
            """
    )

    @OptionGroup var content: ContentOptions

    @OptionGroup var host: HostOptions

    private var timeout: Double { host.timeout }
    private var json: Bool { host.json }

    func run() async throws {
        let items = try content.items()
        let started = ContinuousClock.now
        let terminal = host.terminal
        let chosen = try await host.chooseExtension(of: [.share, .action], for: items, content: content.summary, command: "share", on: terminal)
        if chosen.summary.point == ExtensionPoint.action.id {
            return try await ActionCommand.perform(chosen, items: items, output: nil, timeout: timeout, json: json, started: started)
        }
        let session: ComposeSession
        do {
            session = try await ComposeSession.begin(chosen, items: items)
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(ErrorText.describe(error))")
        }
        var report = ShareReport(extensionIdentifier: chosen.identifier)
        let ending = try await compose(with: session, on: terminal, name: chosen.summary.displayName)
        report.text = session.sheet?.contentText
        report.configuration = session.sheet?.configurationItems.map { ShareReport.Setting(title: $0.title, value: $0.value) } ?? []
        let outcome = await finish(session, ending)
        report.milliseconds = (ContinuousClock.now - started).fractionalMilliseconds
        try end(report, outcome, session: session, name: chosen.summary.displayName)
    }

    /// Shows the sheet on `terminal` until the user posts or cancels; without one, posts the
    /// content as it is if the extension accepts it.
    private func compose(with session: ComposeSession, on terminal: Terminal?, name: String) async throws -> ComposeSheetInteraction.Ending {
        let wait = timeout > 0 ? Duration.seconds(timeout) : .seconds(86_400)
        guard let sheet = await session.sheet(within: wait) else {
            if session.hasEnded { return .ended }
            session.cancel()
            throw CommandFailure(status: 3, "\(name) showed no compose sheet within \(Int(timeout)) s; it was cancelled")
        }
        if let terminal {
            var interaction = ComposeSheetInteraction(session: session, terminal: terminal,
                                                      view: ComposeSheetView(sheet: sheet, name: name, attachments: attachmentLabels))
            return await interaction.run()
        }
        guard sheet.isContentValid else {
            _ = try? session.send(.cancel)
            _ = await withBound(.seconds(2)) { await session.outcome() }
            session.cancel()
            throw CommandFailure(status: CommandFailure.no, "\(name) says the content can't be posted as it is (its isContentValid() answered false); change it, or share from a terminal to edit it")
        }
        guard (try? session.send(.post)) != nil else { return .ended }
        return .posted
    }

    /// The request's outcome: after a post, as long as `--timeout` allows; after a cancel,
    /// a moment for the extension to hear it, then the host cancels it regardless.
    private func finish(_ session: ComposeSession, _ ending: ComposeSheetInteraction.Ending) async -> ExtensionRequestOutcome? {
        let bound: Duration = switch ending {
        case .posted: timeout > 0 ? .seconds(timeout) : .seconds(86_400)
        case .cancelled: ComposeSession.answerDeadline
        case .ended: .seconds(5)
        }
        if let outcome = await withBound(bound, { await session.outcome() }) { return outcome }
        session.cancel()
        return ending == .cancelled ? await session.outcome() : nil
    }

    /// Prints what happened and ends with its status.
    private func end(_ report: ShareReport, _ outcome: ExtensionRequestOutcome?, session: ComposeSession, name: String) throws {
        var report = report
        if let failure = session.failure {
            report.outcome = "failed"
            report.error = failure
            if json { try Output.json(report) }
            throw CommandFailure(status: 3, json ? "" : "\(name)'s compose sheet can't be shown, so the request was cancelled: \(failure)")
        }
        switch outcome {
        case .completed(let returned)?:
            report.outcome = "posted"
            report.returned = returned.compactMap { $0.attributedContentText?.string }
            if json { return try Output.json(report) }
            print("Posted to \(name).")
            for line in report.returned { print(line.escapingControlCharacters(keepingLineBreaks: true)) }
        case .cancelled(let error)?:
            report.outcome = "cancelled"
            report.error = ErrorText.describe(error)
            if json { try Output.json(report) }
            let byUser = (error as NSError).domain == NSCocoaErrorDomain && (error as NSError).code == CocoaError.userCancelled.rawValue
            throw CommandFailure(status: CommandFailure.no, json ? "" : byUser ? "cancelled; nothing was posted" : "\(name) cancelled: \(report.error!)")
        case .interrupted(let interruption)?:
            report.outcome = "interrupted"
            report.error = interruption.message
            if json { try Output.json(report) }
            throw CommandFailure(status: 3, json ? "" : "\(name) was interrupted: \(interruption.message)")
        case nil:
            report.outcome = "interrupted"
            report.error = "no answer within \(Int(timeout)) s of posting"
            if json { try Output.json(report) }
            throw CommandFailure(status: 3, json ? "" : "\(name) did not finish posting within \(Int(timeout)) s; it was cancelled")
        }
    }

    /// The attachments besides the text, as the sheet lists them.
    private var attachmentLabels: [String] {
        content.url + content.files.map { URL(fileURLWithPath: $0).lastPathComponent }
    }
}

/// What `appex share --json` prints.
struct ShareReport: Encodable {
    /// One configuration item as the sheet last showed it.
    struct Setting: Encodable {
        var title: String
        var value: String
    }

    var extensionIdentifier: String
    /// posted, cancelled, interrupted or failed.
    var outcome = ""
    /// The text as it was posted or left.
    var text: String?
    var configuration: [Setting] = []
    /// The content text of each item the extension returned.
    var returned: [String] = []
    var error: String?
    var milliseconds: Double = 0
}
