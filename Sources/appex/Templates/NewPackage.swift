import AppexCore
import Foundation

/// The SwiftPM package `appex new` writes: a containing app and one extension, their bundle
/// template, a script that builds, bundles and installs them, a test, and a README.
///
/// ```
/// Upper/
///   Package.swift
///   README.md
///   install.sh                      swift build, appex bundle, appex install
///   Bundle/Upper.app/               Info.plists (and entitlements) with Xcode's build settings
///   Sources/Upper/main.swift        the containing app
///   Sources/UpperAction/            main.swift and the principal class
///   Tests/UpperActionTests/         the extension run through a private appexd
/// ```
struct NewPackage {
    var template: PointTemplate
    var names: TemplateNames
    /// Where Appex comes from: a folder, or a git URL.
    var appex: Dependency
    /// The `appex` that wrote the package, which `install.sh` falls back on.
    var appexExecutable: String

    /// Appex as the package depends on it.
    enum Dependency {
        case path(String)
        case url(String)

        /// `.package(…)` in Package.swift.
        var declaration: String {
            switch self {
            case .path(let path): ".package(path: \(Self.quoted(path)))"
            case .url(let url): ".package(url: \(Self.quoted(url)), branch: \"main\")"
            }
        }

        /// The package's identity, which names it in `.product(name:package:)`.
        var identity: String {
            let text = switch self { case .path(let path): path; case .url(let url): url }
            let last = text.split(separator: "/").last.map(String.init) ?? text
            return (last.hasSuffix(".git") ? String(last.dropLast(4)) : last).lowercased()
        }

        private static func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }

    /// Each file to write, by its path in the package, and whether it is executable.
    func files() throws -> [(path: String, contents: String, executable: Bool)] {
        let app = "Bundle/\(names.package).app"
        let plugIn = "\(app)/PlugIns/\(names.target).appex"
        var files: [(String, String, Bool)] = [
            ("Package.swift", packageManifest, false),
            ("README.md", readme, false),
            ("install.sh", installScript, true),
            (".gitignore", ".build/\nbuild/\nPackage.resolved\n", false),
            ("\(app)/Info.plist", try plist(appInfo), false),
            ("\(plugIn)/Info.plist", try plist(extensionInfo), false),
            ("Sources/\(names.package)/main.swift", appMain, false),
            ("Sources/\(names.target)/main.swift", "import AppexKit\n\nNSExtensionMain()\n", false),
            ("Sources/\(names.target)/\(template.principalClass).swift", template.source(names), false),
            ("Tests/\(names.target)Tests/\(names.target)Tests.swift", test, false),
        ]
        if let group = names.group {
            let entitlements = try plist([Entitlements.Key.applicationGroups: .array([.string(group)])])
            files += [("\(app)/Entitlements.plist", entitlements, false), ("\(plugIn)/Entitlements.plist", entitlements, false)]
        }
        return files
    }

    // MARK: Package.swift

    private var packageManifest: String {
        let appex = appex.identity
        func product(_ name: String) -> String { ".product(name: \"\(name)\", package: \"\(appex)\")" }
        let appDependencies = names.group == nil ? "" : product("AppexGroups")
        let extensionDependencies = product("AppexKit")
        let testDependencies = (["AppexExtensionTesting"] + template.testModules).map(product).joined(separator: ", ")
        return """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "\(names.package)",
                dependencies: [
                    \(self.appex.declaration),
                ],
                targets: [
                    // The containing app.
                    .executableTarget(name: "\(names.package)", dependencies: [\(appDependencies)]),
                    // The extension, in Swift 5 mode as Xcode's templates are, linked to the shared
                    // AppexKit, which holds Apple's framework names too (Social, NotificationCenter, …)
                    // and which appexd runs it with. If it makes requests itself (URLSession.shared),
                    // depend on \(product("AppexKitStatic")) and \(product("AppexNetworking")) instead.
                    .executableTarget(
                        name: "\(names.target)",
                        dependencies: [\(extensionDependencies)],
                        swiftSettings: [.swiftLanguageMode(.v5)]
                    ),
                    // Runs the extension through a private appexd: `swift build && swift test`.
                    .testTarget(name: "\(names.target)Tests", dependencies: [\(testDependencies)]),
                ]
            )

            """
    }

    // MARK: Info.plists

    private var appInfo: [String: PropertyListValue] {
        bundleInfo(identifier: names.appIdentifier, packageType: "$(PRODUCT_BUNDLE_PACKAGE_TYPE)")
    }

    private var extensionInfo: [String: PropertyListValue] {
        var info = bundleInfo(identifier: names.extensionIdentifier, packageType: "$(PRODUCT_BUNDLE_PACKAGE_TYPE)")
        info["CFBundleDisplayName"] = .string(names.target)
        var manifest: [String: PropertyListValue] = [
            "NSExtensionPointIdentifier": .string(template.point.id),
            "NSExtensionPrincipalClass": .string("$(PRODUCT_MODULE_NAME).\(template.principalClass)"),
        ]
        if !template.attributes.isEmpty { manifest["NSExtensionAttributes"] = .dictionary(template.attributes) }
        info["NSExtension"] = .dictionary(manifest)
        return info
    }

    /// What Xcode's templates put in every Info.plist, with its build settings.
    private func bundleInfo(identifier: String, packageType: String) -> [String: PropertyListValue] {
        [
            "CFBundleDevelopmentRegion": "$(DEVELOPMENT_LANGUAGE)", "CFBundleExecutable": "$(EXECUTABLE_NAME)",
            "CFBundleIdentifier": .string(identifier), "CFBundleInfoDictionaryVersion": "6.0", "CFBundleName": "$(PRODUCT_NAME)",
            "CFBundlePackageType": .string(packageType), "CFBundleShortVersionString": "$(MARKETING_VERSION)",
            "CFBundleVersion": "$(CURRENT_PROJECT_VERSION)",
        ]
    }

    private func plist(_ entries: [String: PropertyListValue]) throws -> String {
        String(decoding: try PropertyListValue.dictionary(entries).xmlData(), as: UTF8.self)
    }

    // MARK: Programs

    private var appMain: String {
        let run = template.runCommand(names)
        guard let group = names.group else {
            return """
                // \(names.package), the app that contains \(names.target). On Apple's platforms the
                // containing app is where a person learns about its extension and sets it up.
                print("\(names.package) contains \(names.target) (\(names.extensionIdentifier)). Try it: \(run)")

                """
        }
        return """
            // \(names.package), the app that contains \(names.target). It shares settings with its
            // extension through the app group \(group), as Apple's apps do, with
            // UserDefaults(suiteName:).
            import AppexGroups
            import Foundation

            // Makes UserDefaults(suiteName: "\(group)") the group's store in this process;
            // extensions have it done for them (docs/app-groups.md in Appex). Only the installed
            // copy of the app is entitled to the group.
            guard FoundationGroupSuites.mirror(["\(group)"]) == ["\(group)"] else {
                print("Run the installed copy of \(names.package), which is entitled to \(group): its path is in `appex info \(names.appIdentifier)`.")
                exit(1)
            }
            let shared = UserDefaults(suiteName: "\(group)")!
            if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "set-message" {
                shared.set(CommandLine.arguments[2], forKey: "message")
                FoundationGroupSuites.flush()
            }
            print("\(names.package) contains \(names.target) (\(names.extensionIdentifier)). Try it: \(run)")
            for key in [\(template.sharedKeys.map { "\"\($0)\"" }.joined(separator: ", "))] {
                print("Shared in \(group): \\(key) = \\(shared.object(forKey: key).map { "\\($0)" } ?? "nothing yet")")
            }

            """
    }

    private var installScript: String {
        let today = template.point == .today
            ? "\n# A widget shows once it is in the Today view.\n\"$APPEX\" today add \(names.extensionIdentifier) >/dev/null 2>&1 || true\n" : ""
        return """
            #!/bin/sh
            # Builds \(names.package) and \(names.target), assembles \(names.package).app from Bundle/, and
            # installs it. APPEX names the appex to use; else the one on PATH, else the one that
            # wrote this package.
            set -eu
            cd "$(dirname "$0")"
            APPEX="${APPEX:-$(command -v appex || echo \(appexExecutable))}"
            swift build
            "$APPEX" bundle Bundle/\(names.package).app --products "$(swift build --show-bin-path)" \\
                --set MARKETING_VERSION=1.0 --set CURRENT_PROJECT_VERSION="$(date +%s)" --output build
            "$APPEX" install build/\(names.package).app\(today)
            echo "Next: \(template.runCommand(names))"

            """
    }

    private var test: String {
        let imports = (["AppexExtensionTesting"] + template.testModules + ["Foundation", "Testing"]).map { "import \($0)" }.joined(separator: "\n")
        return """
            \(imports)

            /// \(names.target) run as a host app runs it: installed in a private Appex, through the
            /// real runtime and sandbox. `swift build` first, so that the extension is built.
            @Suite struct \(names.target)Tests {
                let identifier = "\(names.extensionIdentifier)"

                @Test func itDoesItsJob() async throws {
                    let host = try await ExtensionTestHost(app: ExtensionTestHost.packageFolder(#filePath).appendingPathComponent("Bundle/\(names.package).app"))
            \(template.testBody(names).split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n"))
                    await host.finish()
                }
            }

            """
    }

    // MARK: README

    private var readme: String {
        """
        # \(names.package)

        \(names.package) is an app with one \(template.point.name) extension, \(names.target), for
        [Appex](\(appexLink)), the app extension system for Linux. `appex new \(template.name) \(names.package)` wrote it.

        ```sh
        ./install.sh                    # build, bundle and install
        \(template.runCommand(names))
        ```

        | file | what it is |
        |---|---|
        | `Sources/\(names.target)/\(template.principalClass).swift` | the extension's principal class, as Xcode's template writes it |
        | `Sources/\(names.target)/main.swift` | `NSExtensionMain()`, which runs the extension |
        | `Sources/\(names.package)/main.swift` | the containing app |
        | `Bundle/\(names.package).app/` | the bundle without its executables: Info.plists\(names.group == nil ? "" : " and entitlements (app group \(names.group!))"), with Xcode's build settings |
        | `install.sh` | `swift build`, then `appex bundle` and `appex install` |
        | `Tests/\(names.target)Tests/` | the extension run through a private appexd: `swift build && swift test` |

        To see what the extension printed and what appexd said about it: `appex log \(names.extensionIdentifier)`.
        To attach a debugger, see docs/getting-started.md in Appex.

        """
    }

    private var appexLink: String {
        switch appex {
        case .path(let path): path
        case .url(let url): url
        }
    }
}
