import AppexCore

extension PointTemplate {
    /// A Today widget: Xcode's `TodayViewController`, its view a `WidgetView` description
    /// (docs/porting.md), updated with the time.
    static let today = PointTemplate(
        name: "today", point: .today, targetSuffix: "Widget", principalClass: "TodayViewController",
        testModules: ["AppexToday"], attributes: [:], sharedKeys: ["message"],
        source: { names in
            let message = names.group.map { group in
                """

                        // Set by the containing app.
                        let message = UserDefaults(suiteName: "\(group)")?.string(forKey: "message") ?? "No message yet"
                """
            } ?? ""
            let shown = names.group == nil ? "" : ", .text(message, style: .caption)"
            return """
                import AppexKit
                import Foundation
                import NotificationCenter

                class TodayViewController: WidgetViewController, NCWidgetProviding {

                    override func viewDidLoad() {
                        super.viewDidLoad()
                        // Do any additional setup after loading the view.
                        view = .text("\(names.package)", style: .headline)
                    }

                    func widgetPerformUpdate(completionHandler: (@escaping (NCUpdateResult) -> Void)) {
                        // Perform any setup necessary in order to update the view.
                        let time = DateFormatter.localizedString(from: Date(), dateStyle: .none, timeStyle: .short)\(message)
                        view = .vstack([.text("\(names.package)", style: .headline), .text("Updated at \\(time)")\(shown)])

                        // If an error is encountered, use NCUpdateResult.Failed
                        // If there's no update required, use NCUpdateResult.NoData
                        // If there's an update, use NCUpdateResult.NewData
                        completionHandler(NCUpdateResult.newData)
                    }
                }

                """
        },
        testBody: { names in
            let setUp = names.group.map { group in
                """
                    try host.groupDefaults("\(group)").set("Hello from the app", forKey: "message")

                """
            } ?? ""
            let message = names.group == nil ? "" : "\"Hello from the app\""
            return setUp + """
                    let session = try await WidgetSession.begin(try await host.extension(identifier), presentation: WidgetPresentation(mode: .compact, width: 320)) { _ in }
                    let update = await session.update()
                    #expect(update.result == .newData, "\\(update)")
                    let texts = update.content?.view.texts ?? []
                    #expect(texts.first == "\(names.package)")
                    #expect(texts.dropFirst().first?.hasPrefix("Updated at ") == true, "\\(texts)")
                    #expect(Array(texts.dropFirst(2)) == [\(message)])
                    _ = await session.dismiss()
                """
        },
        runCommand: { names in "appex today --add \(names.extensionIdentifier)" }
    )
}
