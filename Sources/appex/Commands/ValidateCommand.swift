import AppexBundles
import AppexCore
import AppexRegistry
import ArgumentParser
import Foundation

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check an app and its extensions, listing every problem with its file, key path and a hint.",
        discussion: "Exit status: 0 valid, 1 invalid, 2 usage or I/O error. Warnings do not make a bundle invalid."
    )

    @Argument(help: "The .app bundle to check.", completion: .directory)
    var path: String

    @Flag(help: "Add what a store would reject, such as TRUEPREDICATE or a rule that matches everything.")
    var distribution = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    struct Report: Encodable {
        var path: String
        var valid: Bool
        var diagnostics: [Diagnostic]
    }

    func run() throws {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(path) does not exist")
        }
        let inspection = BundleValidator(points: Self.installedPoints(), types: .system, distribution: distribution).validate(appAt: url)
        let valid = inspection.isValid
        if json {
            try Output.json(Report(path: url.path, valid: valid, diagnostics: inspection.diagnostics))
        } else {
            Output.diagnostics(inspection.diagnostics)
            let errors = inspection.diagnostics.filter { $0.severity == .error }.count
            let warnings = inspection.diagnostics.filter { $0.severity == .warning }.count
            print(valid
                ? "\(url.lastPathComponent) is valid\(warnings > 0 ? ", with \(warnings) warning\(warnings == 1 ? "" : "s")" : "")."
                : "\(url.lastPathComponent) is not valid: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s").")
        }
        if !valid { throw CommandFailure.silent(CommandFailure.no) }
    }

    /// The system's points and those the apps installed in this home declare, so an extension
    /// of a declared point validates; the system's alone when nothing is installed here.
    private static func installedPoints() -> ExtensionPointCatalog {
        let home = AppexHome.current
        guard FileManager.default.fileExists(atPath: home.registryURL.path),
              let points = try? Registry(home: home).extensionPoints() else { return ExtensionPoint.catalog }
        return points
    }
}
