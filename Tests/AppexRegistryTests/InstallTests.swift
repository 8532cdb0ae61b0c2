import AppexBundles
import AppexCore
import AppexRegistry
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Install, reinstall and uninstall, against a real SQLite registry in a private home.
@Suite final class InstallTests {
    let test: TestHome
    let registry: Registry

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
    }

    func samples() async throws -> [URL] {
        try await AssembledSamples.apps()
    }

    /// Installs `app` on a thread of its own: installing copies every executable.
    @discardableResult
    func install(_ app: URL) async throws -> InstalledApp {
        try await onThread { [registry] in try registry.install(appAt: app) }
    }

    func contents(of url: URL) async -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    @Test func installingTheSamplesRegistersAppsExtensionsAndContainers() async throws {
        for app in try await samples() { try await install(app) }
        #expect(try registry.apps().map(\.identifier) == ["com.example.monitor", "com.example.notes", "com.example.photos", "com.example.texttools"])
        let notes = try #require(try registry.app("com.example.notes"))
        #expect(notes.extensions.map(\.identifier) == ["com.example.notes.share", "com.example.notes.uppercase", "com.example.notes.widget"])
        #expect(notes.version == "1")
        #expect(notes.shortVersion == "1.0")
        #expect(notes.info.urlTypes.first?.schemes == ["notes"])
        #expect(FileManager.default.isExecutableFile(atPath: notes.executableURL.path))
        #expect(notes.url.path.hasPrefix(test.home.applicationsDirectory.path + "/com.example.notes-"))
        #expect(try registry.extensions(point: "com.apple.share-services").map(\.identifier)
            == ["com.example.notes.share", "com.example.photos.share"])
        await #expect(contents(of: test.home.containersDirectory) == [
            "com.example.monitor", "com.example.monitor.widget",
            "com.example.notes", "com.example.notes.share", "com.example.notes.uppercase", "com.example.notes.widget",
            "com.example.photos", "com.example.photos.share",
            "com.example.texttools", "com.example.texttools.checksum", "com.example.texttools.pagecolour", "com.example.texttools.wordcount",
        ])
    }

    @Test func installedFilesKeepTheirPermissionsAndExtensionsTheirPaths() async throws {
        let notes = try await install(try await samples()[0])
        for plugIn in notes.extensions {
            #expect(plugIn.url.path.hasPrefix(notes.url.path + "/PlugIns/"))
            #expect(FileManager.default.isExecutableFile(atPath: plugIn.executableURL.path))
        }
    }

    /// Whether the executable at `path` is flagged DF_1_PIE, which `dlopen` refuses.
    func flaggedPIE(_ path: String) throws -> Bool {
        let file = try FileDescriptor.open(path)
        defer { file.close() }
        let entries = try ELFFile(reading: file).dynamicEntries()
        return entries.contains { $0.tag == ELFFile.tagFlags1 && $0.value & ELFFile.flagPIE != 0 }
    }

    /// appexd's launcher loads an extension's installed executable with `dlopen`, which
    /// refuses DF_1_PIE (docs/zygote.md): the install clears it in its copy, never in the
    /// author's file, and the copy still runs on its own. An executable that is a link is
    /// left as it is.
    @Test func theInstalledCopyOfAnExtensionsExecutableCanBeLoadedAndStillRuns() async throws {
        let program = AppexBuild.products.appendingPathComponent("AppexLoadedProgram")
        var app = BundleBuilder.app("com.example.loadable", name: "Loadable", in: test.scratch)
        app.addExtension("Share", identifier: "com.example.loadable.share", point: "com.apple.widget-extension", executable: program)
        app.addExtension("Linked", identifier: "com.example.loadable.linked", point: "com.apple.widget-extension", executable: program)
        let source = try app.write()
        let linked = source.appendingPathComponent("PlugIns/Linked.appex")
        let linkedExecutable = try #require(try FileManager.default.contentsOfDirectory(atPath: linked.path).first { $0 != "Info.plist" && !$0.hasSuffix(".plist") })
        try FileManager.default.moveItem(at: linked.appendingPathComponent(linkedExecutable), to: linked.appendingPathComponent("real"))
        try FileManager.default.createSymbolicLink(atPath: linked.appendingPathComponent(linkedExecutable).path, withDestinationPath: "real")
        #expect(try flaggedPIE(program.path), "swift build flags an executable DF_1_PIE")

        let installed = try await install(source)
        let share = try #require(installed.extensions.first { $0.identifier == "com.example.loadable.share" })
        #expect(try !flaggedPIE(share.executableURL.path))
        #expect(try flaggedPIE(program.path), "the author's file is untouched")
        #expect(try flaggedPIE(source.appendingPathComponent("PlugIns/Share.appex").appendingPathComponent(share.info.executable).path))
        let status = try FileManager.default.attributesOfItem(atPath: share.executableURL.path)[.posixPermissions] as? Int
        #expect(status == 0o555, "read-only again")
        let run = try await CommandRunner(executable: share.executableURL, environment: Sanitizers.settings).run(["3"])
        #expect(run.status == 3, "\(run.standardOutput)")
        #expect(run.standardOutput.contains("greeting none"))
        let link = try #require(installed.extensions.first { $0.identifier == "com.example.loadable.linked" })
        #expect(try flaggedPIE(link.executableURL.path), "a link is spawned, not loaded")
    }

    @Test func displayNamesAreLocalisedAndFallBackToTheApp() async throws {
        let folder = test.scratch
        var app = BundleBuilder.app("com.example.tool", name: "Tool", in: folder)
        app.info["CFBundleDisplayName"] = "Tool Deluxe"
        app.addExtension("Widget", identifier: "com.example.tool.widget", point: "com.apple.widget-extension")
        try registry.install(appAt: try app.write())
        #expect(try registry.extension("com.example.tool.widget")?.displayName == "Tool Deluxe")
        try await install(try await samples()[0])
        // The registry keeps every language; which one is shown follows LANGUAGE/LANG.
        let share = try #require(try registry.extension("com.example.notes.share"))
        #expect(["Add to Notes", "Zu Notizen hinzufügen"].contains(share.displayName))
    }

    @Test func aNewerVersionReplacesTheOldAndTheOldCopyIsRemoved() async throws {
        let first = try await install(try await samples()[0])
        let newer = try SampleApps.assemble(into: test.scratch, settings: ["CURRENT_PROJECT_VERSION": "2"])[0]
        let second = try registry.install(appAt: newer)
        #expect(second.version == "2")
        #expect(second.url != first.url)
        #expect(!FileManager.default.fileExists(atPath: first.url.path))
        await #expect(contents(of: test.home.applicationsDirectory) == [second.url.deletingLastPathComponent().lastPathComponent])
        #expect(try registry.apps().count == 1)
    }

    @Test func anOlderVersionIsRefusedUnlessAllowed() async throws {
        try registry.install(appAt: try SampleApps.assemble(into: test.scratch, settings: ["CURRENT_PROJECT_VERSION": "1.10"])[0])
        let older = try SampleApps.assemble(into: test.scratch, settings: ["CURRENT_PROJECT_VERSION": "1.9"])[0]
        let error = #expect(throws: RegistryError.self) { try registry.install(appAt: older) }
        #expect(error?.code == .downgrade)
        #expect(try registry.app("com.example.notes")?.version == "1.10")
        try registry.install(appAt: older, options: .init(allowDowngrade: true))
        #expect(try registry.app("com.example.notes")?.version == "1.9")
    }

    @Test func anInvalidBundleLeavesNothingBehind() async throws {
        var app = BundleBuilder.app("com.example.tool", in: test.scratch)
        app.addExtension("Share", identifier: "com.example.tool.share", point: "com.apple.share-services")
        let error = #expect(throws: RegistryError.self) { try registry.install(appAt: try app.write()) }
        #expect(error?.code == .invalidBundle)
        #expect(error?.diagnostics.map(\.code) == ["missing-activation-rule"])
        #expect(try registry.apps().isEmpty)
        await #expect(contents(of: test.home.applicationsDirectory).isEmpty)
        await #expect(contents(of: test.home.containersDirectory).isEmpty)
    }

    @Test func anExtensionIdentifierTakenByAnotherAppIsAConflictAndRollsBack() async throws {
        var first = BundleBuilder.app("com.example.tool", name: "Tool", in: test.scratch)
        first.addExtension("Widget", identifier: "com.example.tool.widget", point: "com.apple.widget-extension")
        try registry.install(appAt: try first.write())
        // An app whose identifier is the first app's extension's.
        let thief = BundleBuilder.app("com.example.tool.widget", name: "Thief", in: test.scratch)
        let error = #expect(throws: RegistryError.self) { try registry.install(appAt: try thief.write()) }
        #expect(error?.code == .conflict)
        #expect(try registry.apps().map(\.identifier) == ["com.example.tool"])
        await #expect(contents(of: test.home.applicationsDirectory).count == 1)
    }

    /// Any bundle may name any group, so the first app to use one holds it: another app's
    /// bundle naming it, in its own entitlements or an extension's, is refused unless the user
    /// shares the group with it, and is then a member like the first through its upgrades.
    @Test func anAppGroupAnotherAppUsesIsAConflictUnlessTheUserSharesIt() async throws {
        var owner = BundleBuilder.app("com.example.owner", name: "Owner", in: test.scratch.appendingPathComponent("owner"))
        owner.addExtension("OW", identifier: "com.example.owner.widget", point: "com.apple.widget-extension",
                           entitlements: ["com.apple.security.application-groups": ["group.com.example.owner"]])
        try registry.install(appAt: try owner.write())
        var other = BundleBuilder.app("com.example.other", name: "Other", in: test.scratch.appendingPathComponent("other"))
        other.entitlements = ["com.apple.security.application-groups": ["group.com.example.mine"]]
        other.addExtension("XW", identifier: "com.example.other.widget", point: "com.apple.widget-extension",
                           entitlements: ["com.apple.security.application-groups": ["group.com.example.owner"]])
        let url = try other.write()

        let refused = #expect(throws: RegistryError.self) { try registry.install(appAt: url) }
        #expect(refused?.code == .conflict)
        #expect(refused?.message == "the app group group.com.example.owner belongs to com.example.owner, and com.example.other names it too: "
                + "it would read and write their shared container", "\(String(describing: refused))")
        #expect(refused?.hint?.contains("--share-group group.com.example.owner") == true)
        #expect(try registry.apps().map(\.identifier) == ["com.example.owner"], "nothing of it is installed")
        // Sharing another group is not sharing this one.
        #expect(throws: RegistryError.self) { try registry.install(appAt: url, options: .init(sharedGroups: ["group.com.example.mine"])) }

        try registry.install(appAt: url, options: .init(sharedGroups: ["group.com.example.owner"]))
        #expect(try registry.apps().map(\.identifier) == ["com.example.other", "com.example.owner"])
        // Its upgrade keeps the group without being asked again, and so does the owner's.
        other.info["CFBundleVersion"] = "2"
        try registry.install(appAt: try other.write())
        owner.info["CFBundleVersion"] = "2"
        try registry.install(appAt: try owner.write())
        #expect(try registry.apps().map(\.version) == ["2", "2"])

        // Once no app names the group, the next app to name it holds it.
        try registry.uninstall("com.example.other")
        try registry.uninstall("com.example.owner")
        try registry.install(appAt: url)
    }

    @Test func uninstallRemovesTheAppItsContainersAndGroupsNoOneElseUses() async throws {
        let folder = test.scratch
        var a = BundleBuilder.app("com.example.a", name: "A", in: folder)
        a.entitlements = ["com.apple.security.application-groups": ["group.com.example.shared", "group.com.example.a"]]
        a.addExtension("AW", identifier: "com.example.a.widget", point: "com.apple.widget-extension",
                       entitlements: ["com.apple.security.application-groups": ["group.com.example.a-only"]])
        var b = BundleBuilder.app("com.example.b", name: "B", in: folder)
        b.entitlements = ["com.apple.security.application-groups": ["group.com.example.shared"]]
        let installedA = try registry.install(appAt: try a.write())
        try registry.install(appAt: try b.write(), options: .init(sharedGroups: ["group.com.example.shared"]))
        for group in ["group.com.example.shared", "group.com.example.a", "group.com.example.a-only"] {
            try FileManager.default.createDirectory(at: test.home.groupContainer(for: group), withIntermediateDirectories: true)
        }
        let report = try registry.uninstall("com.example.a")
        #expect(report.extensionIdentifiers == ["com.example.a.widget"])
        #expect(report.removedGroups == ["group.com.example.a", "group.com.example.a-only"])
        await #expect(contents(of: test.home.groupsDirectory) == ["group.com.example.shared"])
        await #expect(contents(of: test.home.containersDirectory) == ["com.example.b"])
        #expect(!FileManager.default.fileExists(atPath: installedA.url.deletingLastPathComponent().path))
        #expect(try registry.apps().map(\.identifier) == ["com.example.b"])
        #expect(try registry.extension("com.example.a.widget") == nil)
    }

    @Test func uninstallingWhatIsNotInstalledSaysWhat() async throws {
        try await install(try await samples()[0])
        let missing = #expect(throws: RegistryError.self) { try registry.uninstall("com.example.nothing") }
        #expect(missing?.code == .notInstalled)
        let plugIn = #expect(throws: RegistryError.self) { try registry.uninstall("com.example.notes.share") }
        #expect(plugIn?.message.contains("is an extension") == true)
        #expect(plugIn?.hint?.contains("com.example.notes") == true)
    }

    @Test func aStrayCopyFromACrashedInstallIsSweptByTheNextInstall() async throws {
        let stray = test.home.applicationsDirectory.appendingPathComponent(".incoming-deadbeef/Notes.app")
        try FileManager.default.createDirectory(at: stray, withIntermediateDirectories: true)
        try await install(try await samples()[1])
        #expect(!FileManager.default.fileExists(atPath: stray.path))
        await #expect(contents(of: test.home.applicationsDirectory).count == 1)
    }

    @Test func twoOpenRegistriesSeeEachOthersChanges() async throws {
        let other = try Registry(home: test.home)
        let before = try other.generation()
        try await install(try await samples()[0])
        #expect(try other.generation() > before)
        #expect(try other.apps().map(\.identifier) == ["com.example.notes"])
    }

    @Test func aLookedUpExtensionReflectsTheOtherRegistrysChangesAtOnce() async throws {
        let other = try Registry(home: test.home)
        let identifier = "com.example.notes.share"
        #expect(try other.extension(identifier) == nil)
        try await install(try await samples()[0])
        #expect(try other.extension(identifier)?.isEnabled == true)
        #expect(try other.extension(identifier)?.isEnabled == true, "answered from the cache")
        try registry.setEnabled(false, extension: identifier)
        #expect(try other.extension(identifier)?.isEnabled == false)
        try registry.setEnabled(true, extension: identifier)
        #expect(try other.extension(identifier)?.isEnabled == true)
        _ = try registry.uninstall("com.example.notes")
        #expect(try other.extension(identifier) == nil)
    }

    @Test func aReinstallThatOnlyChangesTheIdentifiersCaseIsRefused() throws {
        try registry.install(appAt: try BundleBuilder.app("com.example.tool", in: test.scratch).write())
        let error = #expect(throws: RegistryError.self) {
            try registry.install(appAt: try BundleBuilder.app("com.Example.Tool", in: test.scratch).write())
        }
        #expect(error?.code == .conflict)
        #expect(error?.hint?.contains("keep com.example.tool") == true)
        #expect(try registry.app("COM.EXAMPLE.TOOL")?.identifier == "com.example.tool")
    }
}

/// The installed copy is a real tree that only the registry changes: a bundle given as a link
/// is copied, not stored as the link, and the author's folder can't reach it afterwards.
@Suite final class InstalledTreeTests {
    let test: TestHome
    let registry: Registry

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
    }

    /// Writes a small valid app, as its author has it, under `folder`.
    func authorsApp(in folder: URL) throws -> URL {
        var app = BundleBuilder.app("com.example.linked", in: folder)
        app.addExtension("Share", identifier: "com.example.linked.share", point: "com.apple.share-services",
                         attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]])
        return try app.write()
    }

    /// The review's escape: `appex install X.app`, X.app a link, stored the link; the author
    /// then added `Frameworks → /` to their own folder, and every extension could read `/`.
    @Test func aBundleGivenAsALinkIsInstalledAsARealCopyTheAuthorCantChangeLater() async throws {
        let real = try authorsApp(in: test.scratch.appendingPathComponent("build"))
        let given = test.scratch.appendingPathComponent("Linked.app")
        try FileManager.default.createSymbolicLink(atPath: given.path, withDestinationPath: real.path)
        let installed = try await onThread { [registry] in try registry.install(appAt: given) }
        var status = stat()
        #expect(lstat(installed.url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR, "a real folder, not a link")
        #expect(installed.url.lastPathComponent == "Linked.app")
        try FileManager.default.createSymbolicLink(atPath: real.appendingPathComponent("Frameworks").path, withDestinationPath: "/")
        #expect(!FileManager.default.fileExists(atPath: installed.url.appendingPathComponent("Frameworks").path))
        #expect(BundleValidator(types: .system).validate(appAt: installed.url).isValid)
    }

    @Test func theInstalledTreeIsReadOnlyAndUninstallRemovesItAll() async throws {
        let app = try authorsApp(in: test.scratch)
        let installed = try await onThread { [registry] in try registry.install(appAt: app) }
        let folder = installed.url.deletingLastPathComponent()
        for url in [test.home.applicationsDirectory, folder, installed.url, installed.url.appendingPathComponent("PlugIns"), installed.extensions[0].url] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
            #expect(mode == 0o555, "\(url.path): \(String(mode, radix: 8))")
        }
        let executable = try #require(FileManager.default.attributesOfItem(atPath: installed.executableURL.path)[.posixPermissions] as? Int)
        let info = try #require(FileManager.default.attributesOfItem(atPath: installed.url.appendingPathComponent("Info.plist").path)[.posixPermissions] as? Int)
        #expect(executable == 0o555 && info == 0o444, "\(String(executable, radix: 8)) \(String(info, radix: 8))")
        // Root passes over permissions; anyone else is refused.
        if geteuid() != 0 {
            #expect(!FileManager.default.createFile(atPath: installed.url.appendingPathComponent("planted").path, contents: Data()))
        }
        try registry.uninstall(installed.identifier)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        let applications = try #require(FileManager.default.attributesOfItem(atPath: test.home.applicationsDirectory.path)[.posixPermissions] as? Int)
        #expect(applications == 0o555, "only the registry's installs and removals change Applications/: \(String(applications, radix: 8))")
    }

    /// An Info.plist of 6 KB in binary, one string of 1,000 characters that 5,000 entries
    /// share, is 5 MB as the XML the registry stores: the record could never be read back, and
    /// every listing that read it failed. The install is refused instead.
    @Test func anInfoPlistThatStandsForMoreXMLThanARecordHoldsIsRefusedAndTheRegistryStillReads() async throws {
        let other = try authorsApp(in: test.scratch.appendingPathComponent("other"))
        _ = try await onThread { [registry] in try registry.install(appAt: other) }
        let url = try BundleBuilder.app("com.example.terse", in: test.scratch.appendingPathComponent("terse")).write()
        let info = url.appendingPathComponent("Info.plist")
        var entries = try #require(try PropertyListValue(decoding: Data(contentsOf: info)).dictionaryValue)
        entries["Padding"] = .array(Array(repeating: .string(String(repeating: "x", count: 1000)), count: 5000))
        let binary = HostilePropertyLists.binary(sharingStrings: .dictionary(entries))
        #expect(binary.count < 20_000, "\(binary.count) bytes")
        try binary.write(to: info)
        let error = await #expect(throws: RegistryError.self) { try await onThread { [registry] in try registry.install(appAt: url) } }
        #expect(error?.code == .invalidBundle, "\(String(describing: error))")
        #expect(error?.message.contains("bytes written as XML, over the 4194304 a registry record may hold") == true, "\(String(describing: error))")
        #expect(try registry.apps().map(\.identifier) == ["com.example.linked"])
    }
}

