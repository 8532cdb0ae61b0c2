import AppexCore
import AppexRegistry
import Foundation

extension Demo {
    /// Shows the Today view as `appex today` prints it: the widgets launched and updated,
    /// Latest Note with the note just shared, System Load with the time and load. Then follows
    /// link [1], as `appex today --open 1` does, into the Notes app, which says what it opened.
    func showTheTodayView() async throws {
        heading("Show the Today view: the new note, and live data (appex today)")
        let confirmations = LinkConfirmations(canAsk: false)
        let columns = 48
        let screen = TodayScreen(width: columns, styled: false)
        let board = TodayBoard(registry: registry, home: registry.home, width: Double(columns) * WidgetRenderer.pointsPerColumn) {
            await confirmations.ask($0)
        }
        try await step("Today view: launch and update \(Self.widgets.count) widgets") {
            board.show(try RegistryAccess.run { () throws(RegistryError) in try board.loadTiles() })
            await board.startAll()
        }
        for line in screen.frame(of: board.tiles).lines { print("  \(line)") }

        heading("Follow link [1] into the Notes app (appex today --open 1)")
        let record = openedNoteRecord
        let link = await step("follow a link until Notes opens the note") { () async -> TodayReport.Link in
            let link = await board.followLink(numbered: 1, as: screen, confirmations: confirmations)
            // appexd launches the app in the background: wait, boundedly, for it to say so.
            for _ in 0..<200 where link.opened && !FileManager.default.fileExists(atPath: record.path) {
                try? await Task.sleep(for: .milliseconds(25))
            }
            return link
        }
        await board.dismissAll()
        guard link.opened else {
            throw CommandFailure(status: CommandFailure.trouble, "error: link [1], \(link.url), was not opened: \(link.reason)")
        }
        print("  Opened \(link.url) in \(link.app ?? "its app"); choosing it here was the confirmation")
        print("  Notes app — `notes opened`: the note, the URL, and the widget that asked:")
        try runInstalledApp("com.example.notes", ["opened"])
    }

    /// Where the Notes app records the note a link opened: appexd launches the app in the
    /// background, so the record comes a little after the link is followed.
    var openedNoteRecord: URL {
        registry.home.container(for: "com.example.notes").appendingPathComponent("opened.txt")
    }
}
