import AppexCore
import AppexRegistry
import AppexSamples
import AppexSandbox
import AppexSystem
import AppexTesting
import Foundation
import Testing

/// The `appex` command, run as a real process against a private home.
@Suite final class CLITests {
    let test: TestHome
    let appex: CommandRunner

    init() throws {
        test = try TestHome()
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
    }

    func write(_ text: String, to name: String) throws -> String {
        try FileManager.default.createDirectory(at: test.scratch, withIntermediateDirectories: true)
        let url = test.scratch.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func samples() async throws -> [String] {
        try await AssembledSamples.apps().map(\.path)
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    @Test func validateExitsZeroForAValidAppOneForAnInvalidOneTwoForAMissingPath() async throws {
        let notes = try await samples()[0]
        #expect(try await appex.run(["validate", notes]).status == 0)
        var broken = BundleBuilder.app("com.example.broken", in: test.scratch)
        broken.addExtension("Share", identifier: "com.example.broken.share", point: "com.apple.share-services",
                            attributes: ["NSExtensionActivationRule": "SUBQUERY(extensionItems, $x,\n $x.attachments.@count > ).@count == 1"])
        let result = try await appex.run(["validate", try broken.write().path])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("error: Tool.app/PlugIns/Share.appex/Info.plist: NSExtension.NSExtensionAttributes.NSExtensionActivationRule: line 2, column"))
        let missing = try await appex.run(["validate", test.scratch.appendingPathComponent("Nope.app").path])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("does not exist"))
    }

    @Test func validateJSONListsEveryDiagnostic() async throws {
        var broken = BundleBuilder.app("com.example.broken", in: test.scratch)
        broken.includeExecutables = false
        let result = try await appex.run(["validate", "--json", try broken.write().path])
        #expect(result.status == 1)
        let report = try #require(try json(result.standardOutput) as? [String: Any])
        #expect(report["valid"] as? Bool == false)
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.map { $0["code"] as? String } == ["app-without-executable"])
    }

    @Test func validateDistributionRejectsTruePredicate() async throws {
        var app = BundleBuilder.app("com.example.tool", in: test.scratch)
        app.addExtension("Share", identifier: "com.example.tool.share", point: "com.apple.share-services",
                         attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"])
        let path = try app.write().path
        #expect(try await appex.run(["validate", path]).status == 0)
        let distribution = try await appex.run(["validate", "--distribution", path])
        #expect(distribution.status == 1)
        #expect(distribution.standardOutput.contains("always true"))
    }

    @Test func matchPrintsMatchOrNoMatchWithExitStatus() async throws {
        let items = try write(#"[{"attachments": [{"registeredTypeIdentifiers": ["public.jpeg"]}]}]"#, to: "items.json")
        let rule = "SUBQUERY(extensionItems, $e, SUBQUERY($e.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"public.image\").@count >= 1).@count >= 1"
        let yes = try await appex.run(["match", "--rule-string", rule, "--items", items])
        #expect(yes.status == 0)
        #expect(yes.standardOutput == "match\n")
        let no = try await appex.run(["match", "--rule-string", rule.replacingOccurrences(of: "public.image", with: "public.movie"), "--items", items])
        #expect(no.status == 1)
        #expect(no.standardOutput == "no match\n")
    }

    @Test func matchGivesLineAndColumnForABrokenRule() async throws {
        let items = try write("[]", to: "items.json")
        let result = try await appex.run(["match", "--rule-string", "TRUEPREDICATE AND\n  (FALSEPREDICATE OR", "--items", items])
        #expect(result.status == 2)
        #expect(result.standardError.contains("line 2, column"))
    }

    @Test func matchReadsDictionaryRulesFromJSONAndPlistFilesAndBundles() async throws {
        let items = try write(#"[{"attachments": [{"registeredTypeIdentifiers": ["public.png"]}, {"registeredTypeIdentifiers": ["public.png"]}]}]"#, to: "items.json")
        let json = try write(#"{"NSExtensionActivationSupportsImageWithMaxCount": 2}"#, to: "rule.json")
        #expect(try await appex.run(["match", "--rule", json, "--items", items]).status == 0)
        let plist = try write("{ NSExtensionActivationSupportsImageWithMaxCount = 1; }", to: "rule.plist")
        #expect(try await appex.run(["match", "--rule", plist, "--items", items]).status == 1)
        let predicate = try write("TRUEPREDICATE\n", to: "rule.txt")
        #expect(try await appex.run(["match", "--rule", predicate, "--items", items]).status == 0)
        let photos = try await samples()[1]
        #expect(try await appex.run(["match", "--bundle", photos + "/PlugIns/PhotosShare.appex", "--items", items]).status == 0)
    }

    @Test func usageErrorsExitTwo() async throws {
        let result = try await appex.run(["match", "--items", "x.json"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("exactly one of"))
        #expect(try await appex.run(["no-such-command"]).status == 2)
    }

    @Test func processesThatCreateTheRegistryAtTheSameMomentAllOpenIt() async throws {
        // Each switches the new database to WAL, and SQLite fails all but one at once,
        // whatever the busy timeout, unless they try again.
        for _ in 0..<4 {
            let home = try TestHome()
            let appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: home.environment)
            let runs = try await withThrowingTaskGroup(of: CommandRunner.Result.self) { group in
                for _ in 0..<6 { group.addTask { try await appex.run(["list"]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.standardError).filter { !$0.isEmpty })")
        }
    }

    @Test func installListInfoEnableDisableQueryUninstall() async throws {
        for app in try await samples() {
            #expect(try await appex.run(["install", app]).status == 0)
        }
        let list = try await appex.run(["list"])
        #expect(list.standardOutput.split(separator: "\n").map(String.init) == [
            "+    com.example.monitor.widget(1.0)",
            "+    com.example.notes.share(1.0)", "+    com.example.notes.uppercase(1.0)", "+    com.example.notes.widget(1.0)",
            "+    com.example.photos.share(1.0)",
            "+    com.example.texttools.checksum(1.0)", "+    com.example.texttools.pagecolour(1.0)", "+    com.example.texttools.wordcount(1.0)",
        ])
        #expect(try await appex.run(["disable", "com.example.notes.uppercase"]).status == 0)
        #expect(try await appex.run(["list", "-p", "action"]).standardOutput
            == "-    com.example.notes.uppercase(1.0)\n+    com.example.texttools.checksum(1.0)\n+    com.example.texttools.pagecolour(1.0)\n+    com.example.texttools.wordcount(1.0)\n")
        let info = try #require(try json(try await appex.run(["info", "--json", "com.example.notes.share"]).standardOutput) as? [String: Any])
        #expect(info["point"] as? String == "com.apple.share-services")
        #expect(info["enabled"] as? Bool == true)
        let images = try write(#"[{"attachments": [{"registeredTypeIdentifiers": ["public.jpeg"]}]}]"#, to: "images.json")
        let query = try await appex.run(["query", "-p", "share", "--items", images])
        #expect(query.status == 0)
        #expect(query.standardOutput == "com.example.photos.share\tAdd to Album\n")
        let text = try write(#"[{"attributedContentText": "hello"}]"#, to: "text.json")
        #expect(try await appex.run(["query", "-p", "action", "--items", text]).standardOutput == "com.example.texttools.wordcount\tWord Count\n")
        #expect(try await appex.run(["enable", "com.example.notes.uppercase"]).status == 0)
        #expect(try await appex.run(["query", "-p", "action", "--items", text]).standardOutput.hasPrefix("com.example.notes.uppercase"))
        let uninstall = try await appex.run(["uninstall", "--json", "com.example.photos"])
        #expect(uninstall.status == 0)
        #expect(try await appex.run(["list", "-p", "com.apple.share-services"]).standardOutput == "+    com.example.notes.share(1.0)\n",
                "Photos' Share extension went with its app")
        let again = try await appex.run(["uninstall", "com.example.photos"])
        #expect(again.status == 1)
        #expect(again.standardError.contains("no app com.example.photos is installed"))
    }

    @Test func pointsListsTheDeclaredPointsAndValidateAndQueryUseThem() async throws {
        var editor = BundleBuilder.app("com.example.editor", name: "Editor", in: test.scratch.appendingPathComponent("editor"))
        editor.info["AppexExtensionPoints"] = .dictionary(["com.example.editor.formatter": [
            "AppexExtensionPointName": "Formatter", "AppexMemoryLimit": 64, "AppexRequestDeadline": .real(2.5), "AppexVisibility": "public",
        ]])
        var prettier = BundleBuilder.app("com.example.prettier", name: "Prettier", in: test.scratch.appendingPathComponent("prettier"))
        prettier.addExtension("Pretty", identifier: "com.example.prettier.pretty", point: "com.example.editor.formatter",
                              attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]])
        let prettierPath = try prettier.write().path
        let unknown = try await appex.run(["validate", prettierPath])
        #expect(unknown.status == 1)
        #expect(unknown.standardOutput.contains("is not an extension point this system knows"))
        #expect(try await appex.run(["install", try editor.write().path]).status == 0)
        #expect(try await appex.run(["validate", prettierPath]).status == 0)
        #expect(try await appex.run(["install", prettierPath]).status == 0)

        let listed = try await appex.run(["points"])
        #expect(listed.standardOutput.contains("""
            com.example.editor.formatter  Formatter  (declared by com.example.editor, public)
                memory 64 MiB, launch deadline 1000 ms, request deadline 2500 ms, activation rule optional, opens URLs: no
            """))
        #expect(listed.standardOutput.contains("com.apple.share-services  Share  (system)"))
        let points = try #require(try json(try await appex.run(["points", "--json"]).standardOutput) as? [[String: Any]])
        let formatter = try #require(points.first { $0["identifier"] as? String == "com.example.editor.formatter" })
        #expect(formatter["declaringApp"] as? String == "com.example.editor")
        #expect(formatter["memoryLimitMiB"] as? Int == 64)
        #expect(try await appex.run(["info", "com.example.editor"]).standardOutput.contains("Declares:   Formatter (com.example.editor.formatter), public"))
        let items = try write(#"[{"attributedContentText": "x"}]"#, to: "items.json")
        #expect(try await appex.run(["query", "-p", "Formatter", "--items", items]).standardOutput.hasPrefix("com.example.prettier.pretty"))
        #expect(try await appex.run(["list", "--point", "formatter"]).standardOutput.contains("com.example.prettier.pretty"))
    }

    @Test func installOfAnInvalidBundlePrintsEveryDiagnostic() async throws {
        var broken = BundleBuilder.app("com.example.broken", in: test.scratch)
        broken.addExtension("Share", identifier: "com.example.broken.share", point: "com.apple.share-services")
        broken.addExtension("Other", identifier: "com.elsewhere.other", point: "com.apple.widget-extension")
        let result = try await appex.run(["install", try broken.write().path])
        #expect(result.status == 1)
        #expect(result.standardError.contains("missing-activation-rule") || result.standardError.contains("NSExtensionActivationRule"))
        #expect(result.standardError.contains("com.elsewhere.other"))
        #expect(try await appex.run(["list"]).standardOutput == "")
    }

    @Test func installOfAnAppNamingAnotherAppsGroupSaysWhoseAndHowToShareIt() async throws {
        let groups: [String: PropertyListValue] = ["com.apple.security.application-groups": ["group.com.example.first"]]
        var first = BundleBuilder.app("com.example.first", name: "First", in: test.scratch.appendingPathComponent("first"))
        first.entitlements = groups
        var second = BundleBuilder.app("com.example.second", name: "Second", in: test.scratch.appendingPathComponent("second"))
        second.entitlements = groups
        #expect(try await appex.run(["install", try first.write().path]).status == 0)
        let refused = try await appex.run(["install", try second.write().path])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("the app group group.com.example.first belongs to com.example.first"), "\(refused.standardError)")
        #expect(refused.standardError.contains("install with --share-group group.com.example.first"), "\(refused.standardError)")
        let shared = try await appex.run(["install", "--share-group", "group.com.example.first", second.url.path])
        #expect(shared.status == 0, "\(shared.standardError)")
        #expect(shared.standardOutput.hasPrefix("Installed Second (com.example.second)"), "\(shared.standardOutput)")
    }

    @Test func schemesShowsWhichAppOpensEachAndSetChoosesAnother() async throws {
        let urlTypes: PropertyListValue = .array([.dictionary(["CFBundleURLSchemes": .array([.string("mail")])])])
        var first = BundleBuilder.app("com.example.first", name: "First", in: test.scratch.appendingPathComponent("first"))
        first.info["CFBundleURLTypes"] = urlTypes
        var second = BundleBuilder.app("com.example.second", name: "Second", in: test.scratch.appendingPathComponent("second"))
        second.info["CFBundleURLTypes"] = urlTypes
        #expect(try await appex.run(["schemes"]).standardOutput == "No installed app declares a URL scheme.\n")
        #expect(try await appex.run(["install", try first.write().path]).status == 0)
        let installed = try await appex.run(["install", try second.write().path])
        #expect(installed.status == 0, "\(installed.standardError)")
        #expect(installed.standardOutput.contains("The URL scheme mail stays with com.example.first, which declared it first: "
                + "`appex schemes set mail com.example.second` has this app open it."), "\(installed.standardOutput)")
        #expect(try await appex.run(["schemes"]).standardOutput == "mail: com.example.first (declared it first; also declared by com.example.second)\n")

        #expect(try await appex.run(["schemes", "set", "MAIL", "com.example.SECOND"]).standardOutput == "mail: com.example.second\n")
        let listed = try #require(try json(try await appex.run(["schemes", "list", "--json"]).standardOutput) as? [[String: Any]])
        #expect(listed.first?["appIdentifier"] as? String == "com.example.second" && listed.first?["isChosen"] as? Bool == true, "\(listed)")
        let refused = try await appex.run(["schemes", "set", "mail", "com.example.nobody"])
        #expect(refused.status == 1 && refused.standardError.contains("no app com.example.nobody is installed"), "\(refused.standardError)")
    }

    @Test func typesConformsAndInfo() async throws {
        #expect(try await appex.run(["types", "conforms", "public.jpeg", "public.image"]).status == 0)
        #expect(try await appex.run(["types", "conforms", "public.image", "public.jpeg"]).status == 1)
        let conforms = try #require(try json(try await appex.run(["types", "conforms", "--json", "com.adobe.pdf", "public.data"]).standardOutput) as? [String: Any])
        #expect(conforms["conforms"] as? Bool == true)
        let info = try await appex.run(["types", "info", ".jpg"])
        #expect(info.status == 0)
        #expect(info.standardOutput.hasPrefix("public.jpeg"))
        let mime = try #require(try json(try await appex.run(["types", "info", "--json", "image/png"]).standardOutput) as? [String: Any])
        #expect(mime["identifier"] as? String == "public.png")
        #expect(try await appex.run(["types", "info", "image/jpg"]).standardOutput.hasPrefix("public.jpeg"))
        #expect((mime["supertypes"] as? [String])?.contains("public.image") == true)
    }

    @Test func bundleAssemblesATemplateAndValidatesIt() async throws {
        let output = test.scratch.appendingPathComponent("assembled")
        let products = try await onThread { try SamplePackage.products() }
        let result = try await appex.run([
            "bundle", SampleApps.templates[0].path, "--products", products.path,
            "--set", "MARKETING_VERSION=2.0", "--set", "CURRENT_PROJECT_VERSION=7", "--output", output.path,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try await appex.run(["install", output.appendingPathComponent("Notes.app").path]).standardOutput.contains("2.0"))
        let unexpanded = try await appex.run(["bundle", SampleApps.templates[0].path, "--products", products.path, "--output", output.path])
        #expect(unexpanded.status == 1)
        #expect(unexpanded.standardOutput.contains("$(MARKETING_VERSION)"))
        let noProducts = try await appex.run(["bundle", SampleApps.templates[0].path, "--products", test.scratch.path, "--output", output.path])
        #expect(noProducts.status == 2)
        #expect(noProducts.standardError.contains("swift build --product"))
    }

    @Test func doctorReportsTheInstallation() async throws {
        let result = try await appex.run(["doctor"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains(test.home.dataDirectory.path))
        #expect(result.standardOutput.contains("registry"))
    }

    /// It says which launcher and AppexKit appexd would use, and how it would start each
    /// installed extension, and why (docs/zygote.md).
    @Test func doctorSaysHowAppexdWouldStartEachExtension() async throws {
        try await AssembledSamples.install(into: Registry(home: test.home), only: ["TextTools.app"])
        // And an extension built the old way, with the Swift runtime linked in.
        var old = BundleBuilder.app("com.example.old", name: "Old", in: test.scratch)
        old.addExtension("OldShare", identifier: "com.example.old.share", point: "com.apple.share-services",
                         attributes: ["NSExtensionActivationRule": .dictionary(["NSExtensionActivationSupportsText": true])],
                         executable: AppexBuild.products.appendingPathComponent("AppexFaultExtension"))
        _ = try Registry(home: test.home).install(appAt: try old.write())
        let kit = AppexBuild.products.appendingPathComponent("libAppexKit.so").path
        let result = try await appex.run(["doctor"])
        #expect(result.standardOutput.contains("AppexKit               ok           \(kit): extensions linked to the shared AppexKit run with it"), "\(result.standardOutput)")
        if Sandbox.KernelSupport.current.isolationProblem == nil && !Sanitizers.areActive {
            #expect(result.standardOutput.contains("launcher               ok           \(AppexBuild.products.path)/appex-launcher, with "))
            // The samples are linked to the shared AppexKit, as an author's package links them.
            #expect(result.standardOutput.contains("extension              ok           com.example.texttools.wordcount: forked from the launcher"),
                    "\(result.standardOutput)")
            #expect(result.standardOutput.contains("extension              ok           com.example.old.share: spawned: it is linked statically"),
                    "\(result.standardOutput)")
        }
        let off = try await CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"),
                                          environment: test.environment.merging(["APPEX_LAUNCHER": "off", "APPEX_KIT": "off"]) { $1 }).run(["doctor"])
        #expect(off.standardOutput.contains("launcher               unavailable  APPEX_LAUNCHER=off: appexd spawns every extension"), "\(off.standardOutput)")
        #expect(off.standardOutput.contains("AppexKit               MISSING      no libAppexKit.so beside appexd (or APPEX_KIT=off)"))
    }
}

/// Running the command many times leaves no descriptor or child process behind in the test.
@Suite(.serialized) final class CommandRunnerLeakTests {
    @Test func runningCommandsLeavesNothingOpen() async throws {
        let test = try TestHome()
        let appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
        for _ in 0..<10 {
            let result = try await appex.run(["list"])
            #expect(result.pipeNames.allSatisfy { $0.hasPrefix("pipe:") })
            #expect(Set(ResourceCounts.openDescriptorTargets()).isDisjoint(with: result.pipeNames))
            #expect(!ResourceCounts.childProcesses().contains(result.processIdentifier))
        }
    }
}
