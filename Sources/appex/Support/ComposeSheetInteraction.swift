import AppexShare
import Foundation

/// A Share extension's compose sheet on the user's terminal: draws the sheet the extension
/// sends, and sends back what the user types, taps, picks, and whether they post or cancel.
///
/// The extension is never waited on without a bound: an edit it doesn't answer within
/// ``ComposeSession/answerDeadline`` is shown as unanswered, Post stays off until it answers,
/// and Cancel always works.
struct ComposeSheetInteraction {
    /// How the sheet was left.
    enum Ending {
        /// The user chose Post, with the sheet valid, and the extension was told.
        case posted
        /// The user cancelled; the extension was told, if it still listens.
        case cancelled
        /// The request ended while the sheet was up: the extension answered or failed.
        case ended
    }

    let session: ComposeSession
    let terminal: Terminal
    var view: ComposeSheetView
    /// The user's last edit that the extension hasn't answered yet, and when it was sent.
    private var unansweredEdit: (sequence: UInt64, sent: ContinuousClock.Instant)?
    private var revision: Int
    /// What is on the screen, so that only a change is drawn.
    private var drawn: [String] = []

    init(session: ComposeSession, terminal: Terminal, view: ComposeSheetView) {
        self.session = session
        self.terminal = terminal
        self.view = view
        revision = session.revision
    }

    private var name: String { view.sheet.title ?? view.name }

    /// Runs the sheet until the user posts or cancels, or the request ends.
    mutating func run() async -> Ending {
        terminal.enterRaw()
        defer {
            terminal.restore()
            terminal.keepDrawing()
        }
        while true {
            takeNewSheet()
            if session.hasEnded { return .ended }
            if let edit = unansweredEdit, ContinuousClock.now - edit.sent > ComposeSession.answerDeadline {
                view.status = unansweredStatus
            }
            redraw()
            guard terminal.hasInput else {
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            guard let key = terminal.readKey() else { return cancel() }
            if let ending = await handle(key) { return ending }
        }
    }

    /// What the status line says while the extension hasn't answered the last edit.
    private var unansweredStatus: String {
        Style.bold("No answer from \(name) in \(ComposeSession.answerDeadline.wholeMilliseconds / 1000) s: Post stays off until it checks the text. Esc cancels.")
    }

    /// Draws the sheet if it changed since it was last drawn.
    private mutating func redraw() {
        let lines = view.lines
        guard lines != drawn else { return }
        drawn = lines
        terminal.draw(lines)
    }

    private mutating func takeNewSheet() {
        guard session.revision != revision, let sheet = session.sheet else { return }
        revision = session.revision
        view.update(sheet)
        if let edit = unansweredEdit, sheet.answering >= edit.sequence {
            unansweredEdit = nil
            view.status = nil
        }
    }

    private mutating func handle(_ key: Key) async -> Ending? {
        if view.sheet.optionList != nil { return await handleInList(key) }
        switch (key, view.focus) {
        case (.escape, _), (.control("c"), _), (.enter, .cancel):
            return cancel()
        case (.control("s"), _), (.enter, .post):
            return await post()
        case (.tab, _), (.down, _):
            view.moveFocus(1)
        case (.up, _), (.backTab, _):
            view.moveFocus(-1)
        case (.enter, .item(let index)):
            await ask(.tap(index))
        case (.enter, .text):
            edit { $0.append("\n") }
        case (.backspace, .text):
            edit { if !$0.isEmpty { $0.removeLast() } }
        case (.character(let typed), .text):
            edit { $0.append(typed) }
        default:
            break
        }
        return nil
    }

    private mutating func handleInList(_ key: Key) async -> Ending? {
        let count = view.sheet.optionList?.options.count ?? 0
        guard count > 0 || key == .escape || key == .control("c") else { return nil }
        switch key {
        case .control("c"):
            return cancel()
        case .escape, .left:
            await ask(.back)
        case .up, .character("k"):
            view.optionSelection = (view.optionSelection + count - 1) % count
        case .down, .character("j"), .tab:
            view.optionSelection = (view.optionSelection + 1) % count
        case .enter:
            await ask(.pick(view.optionSelection))
        case .character(let typed) where typed.wholeNumberValue.map { (1...min(count, 9)).contains($0) } == true:
            view.optionSelection = typed.wholeNumberValue! - 1
            await ask(.pick(view.optionSelection))
        default:
            break
        }
        return nil
    }

    /// Changes the text and sends it; the extension's answer comes with the next sheet.
    private mutating func edit(_ change: (inout String) -> Void) {
        change(&view.text)
        guard let sequence = try? session.send(.text(view.text)) else { return }
        if unansweredEdit == nil { unansweredEdit = (sequence, ContinuousClock.now) } else { unansweredEdit?.sequence = sequence }
    }

    /// Sends a tap, a pick or back, and waits, bounded, for the sheet that answers it.
    private mutating func ask(_ message: ComposeMessage) async {
        guard let sequence = try? session.send(message) else { return }
        if await session.sheet(answering: sequence, within: ComposeSession.answerDeadline) == nil, !session.hasEnded {
            view.status = Style.bold("No answer from \(name) in \(ComposeSession.answerDeadline.wholeMilliseconds / 1000) s. Esc cancels.")
        } else {
            view.status = nil
        }
        takeNewSheet()
    }

    /// Posts if the extension says the content is valid, having first waited, bounded, for
    /// its answer to the last edit.
    private mutating func post() async -> Ending? {
        if let edit = unansweredEdit {
            view.status = Style.dim("Waiting for \(name) to check the text…")
            redraw()
            guard await session.sheet(answering: edit.sequence, within: ComposeSession.answerDeadline) != nil else {
                view.status = unansweredStatus
                return nil
            }
            takeNewSheet()
        }
        guard view.sheet.isContentValid else {
            view.status = Style.bold("\(name) says this can't be posted as it is.")
            return nil
        }
        guard (try? session.send(.post)) != nil else { return .ended }
        view.status = Style.dim("Posting…")
        view.focus = .post
        redraw()
        return .posted
    }

    private func cancel() -> Ending {
        _ = try? session.send(.cancel)
        return .cancelled
    }
}
