import AppexBundles
import AppexCore
import ArgumentParser
import Foundation

struct BundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Assemble an installable .app from a bundle template and built SwiftPM products.",
        discussion: """
            The template is the bundle without its binaries: Info.plist, Entitlements.plist, .lproj folders and \
            resources, with each extension in PlugIns/NAME.appex/. Each bundle's CFBundleExecutable is copied from \
            the products folder, and build settings such as $(MARKETING_VERSION) are expanded. The result is validated.

            Example:
              swift build -c release --static-swift-stdlib
              appex bundle Notes.app --products .build/release --set MARKETING_VERSION=1.0 --output build
            """
    )

    @Argument(help: "The bundle template, a folder named NAME.app.", completion: .directory)
    var template: String

    @Option(help: "The folder with the built executables (default: the folder appex runs from).", completion: .directory)
    var products: String?

    @Option(name: .shortAndLong, help: "Where to put the assembled bundle.", completion: .directory)
    var output: String = "."

    @Option(name: .customLong("set"), help: ArgumentHelp("A build setting to expand in Info.plists.", valueName: "NAME=VALUE"))
    var settings: [String] = []

    @Option(name: .customLong("framework"), help: "A shared library (.so) to put into Frameworks/.", completion: .file())
    var frameworks: [String] = []

    func validate() throws {
        for setting in settings where !setting.contains("=") {
            throw ValidationError("--set takes NAME=VALUE, not \(setting)")
        }
    }

    func run() throws {
        var values: [String: String] = [:]
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(parts[0])] = String(parts[1])
        }
        let productsURL = products.map { URL(fileURLWithPath: $0) } ?? Executable.directory
        let assembler = BundleAssembler(products: productsURL, settings: values, frameworks: frameworks.map { URL(fileURLWithPath: $0) })
        let app: URL
        let progress = ProgressLine("Assembling \(URL(fileURLWithPath: template).lastPathComponent)")
        do {
            progress.show("copying the template and the products")
            app = try assembler.assemble(template: URL(fileURLWithPath: template), into: URL(fileURLWithPath: output))
        } catch {
            progress.end()
            throw CommandFailure(status: CommandFailure.trouble, "error: \(error)")
        }
        progress.show("validating")
        let inspection = BundleValidator(types: .system).validate(appAt: app)
        progress.end()
        Output.diagnostics(inspection.diagnostics)
        guard inspection.isValid else {
            throw CommandFailure(status: CommandFailure.no, "assembled \(app.path), but it is not valid")
        }
        print("Assembled \(app.path)")
    }
}

/// Where the running `appex` executable is.
enum Executable {
    static var directory: URL {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }
}
