import AppexCore
import ArgumentParser
import Foundation

/// `appex new`: writes a package with a containing app and one extension, ready to build,
/// bundle, install and run; the Linux counterpart of Xcode's extension templates.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a SwiftPM package with an app and an extension in Apple's template shape.",
        discussion: """
            Points: \(PointTemplate.all.map(\.name).joined(separator: ", ")). The package holds the extension's principal \
            class as Xcode writes it, Info.plists with Xcode's build settings, entitlements with --group, a test, a \
            README, and install.sh, which builds, bundles and installs the app.

            Example:
              appex new action Upper
              Upper/install.sh
              appex run com.example.upper.action --text hello
            """
    )

    @Argument(help: "The extension point: \(PointTemplate.all.map(\.name).joined(separator: ", ")).")
    var point: String

    @Argument(help: "The name of the package and its app, such as Upper: letters and digits, starting with a letter.")
    var name: String

    @Option(help: ArgumentHelp("The app's bundle identifier (default: com.example.NAME, lowercased).", valueName: "BUNDLE_ID"))
    var app: String?

    @Option(help: ArgumentHelp("An app group the app and its extension share, such as group.com.example.upper.", valueName: "GROUP"))
    var group: String?

    @Option(help: ArgumentHelp("Where the package gets Appex: a folder or a git URL (default: the checkout this appex was built in).",
                               valueName: "PATH_OR_URL"))
    var appex: String?

    @Option(name: .shortAndLong, help: "The folder to create the package in.", completion: .directory)
    var output: String = "."

    func validate() throws {
        guard PointTemplate.named(point) != nil else {
            let hosted = ExtensionPoint.hosted.map(\.name).filter { name in !PointTemplate.all.contains { $0.point.name == name } }
            throw ValidationError("no template for \(point): appex new makes \(PointTemplate.all.map(\.name).joined(separator: ", ")). "
                + "\(hosted.joined(separator: ", ")) have no host in Appex yet, so no template either.")
        }
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) else {
            throw ValidationError("\(name) can't name a package and its executables: use letters and digits, starting with a letter, such as Upper")
        }
        if let app, !BundleInfo.isValidIdentifier(app) {
            throw ValidationError("\(app) is not a bundle identifier: use reverse-DNS, such as com.example.upper")
        }
        if let group, !Entitlements.isValidGroupIdentifier(group) {
            throw ValidationError("\(group) is not an app group: write group. followed by a reverse-DNS name, such as group.com.example.upper")
        }
    }

    func run() throws {
        let template = PointTemplate.named(point)!
        let appIdentifier = app ?? "com.example.\(name.lowercased())"
        let names = TemplateNames(package: name, target: name + template.targetSuffix, appIdentifier: appIdentifier,
                                  extensionIdentifier: "\(appIdentifier).\(template.name)", group: group)
        let package = NewPackage(template: template, names: names, appex: try dependency(),
                                 appexExecutable: Executable.directory.appendingPathComponent("appex").path)
        let folder = URL(fileURLWithPath: output).appendingPathComponent(name)
        guard !FileManager.default.fileExists(atPath: folder.path) else {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(folder.path) already exists; choose another name or --output")
        }
        do {
            for file in try package.files() {
                let url = folder.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.contents.utf8).write(to: url)
                if file.executable { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path) }
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw CommandFailure(status: CommandFailure.trouble, "error: can't write \(folder.path): \(FileErrorText.describe(error))")
        }
        print("""
            Created \(folder.path): \(names.package), with the \(template.point.name) extension \(names.target) (\(names.extensionIdentifier)).
            Next:
              \(folder.path)/install.sh
              \(template.runCommand(names))
            """)
    }

    /// Appex as the package depends on it: `--appex`, or the checkout this appex was built in.
    private func dependency() throws -> NewPackage.Dependency {
        if let appex {
            if appex.contains("://") || appex.hasPrefix("git@") { return .url(appex) }
            return .path(URL(fileURLWithPath: appex).standardizedFileURL.path)
        }
        var folder = Executable.directory
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/AppexKit").path) { return .path(folder.path) }
            folder.deleteLastPathComponent()
        }
        throw CommandFailure(status: CommandFailure.trouble,
                             "error: this appex was not built in an Appex checkout, so say where the package gets Appex: --appex PATH or --appex URL")
    }
}
