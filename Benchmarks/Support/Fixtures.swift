public import AppexCore
import AppexBundles
import AppexRegistry
import AppexTesting
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bundles and homes the benchmarks measure, made through the real bundle and install code.
public enum Fixtures {
    /// Writes an app `identifier` with one share extension per rule, and returns its URL.
    ///
    /// The executables are two-line shell scripts, which the validator accepts like ELF
    /// programs, so that 10,000 extensions don't mean 10,000 copies of `/bin/true`.
    public static func writeApp(
        _ identifier: String, name: String = "Tool", rules: [PropertyListValue], point: String = ShareHome.point, in folder: URL
    ) throws -> URL {
        var builder = BundleBuilder.app(identifier, name: name, in: folder)
        builder.includeExecutables = false
        for (index, rule) in rules.enumerated() {
            builder.addExtension("Share\(index)", identifier: "\(identifier).share\(index)", point: point, attributes: ["NSExtensionActivationRule": rule])
        }
        let url = try builder.write()
        try writeScript(at: url.appendingPathComponent(name.lowercased()))
        for index in rules.indices {
            try writeScript(at: url.appendingPathComponent("PlugIns/Share\(index).appex/Share\(index)"))
        }
        return url
    }

    private static func writeScript(at url: URL) throws {
        try Data("#!/bin/sh\nexit 0\n".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }

    /// Whether an app holding `rule` passes the validator that `Registry.install` runs.
    public static func installs(_ rule: PropertyListValue, in folder: URL) throws -> Bool {
        let url = try writeApp("com.example.probe", rules: [rule], in: folder)
        defer { try? FileManager.default.removeItem(at: url) }
        return BundleValidator(types: .system).validate(appAt: url).isValid
    }

    /// A folder shared by the processes of one `swift package benchmark` run: the tool runs
    /// each benchmark in its own process, all children of the same parent, so homes that take
    /// a while to install are built by the first benchmark that needs them and reused by the
    /// rest. Folders of earlier runs (whose parent is gone) are removed. `APPEX_BENCH_FIXTURES`
    /// names a folder to use instead (kept, for profiling drivers).
    public static var runFolder: URL {
        if let folder = ProcessInfo.processInfo.environment["APPEX_BENCH_FIXTURES"] {
            return URL(fileURLWithPath: folder)
        }
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
        let parent = getppid()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix("appex-bench-") {
            if let pid = Int32(name.dropFirst("appex-bench-".count)), pid != parent, kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
            }
        }
        return base.appendingPathComponent("appex-bench-\(parent)")
    }
}

/// A home with 10,000 share extensions (2,500 apps of 4), installed one app at a time with
/// `Registry.install`, whose rules are the corpus's share-services rules.
public enum ShareHome {
    public static let point = "com.apple.share-services"
    public static let appCount = 2_500
    public static let extensionsPerApp = 4
    public static var extensionCount: Int { appCount * extensionsPerApp }

    public enum Variant: String, Sendable {
        /// Each extension's rule is drawn from the corpus, weighted by how often projects wrote
        /// it; the point index compiles each distinct rule once.
        case corpus
        /// Every extension's rule is distinct (a UTI string or a count varies per extension),
        /// so nothing is deduplicated: the worst case.
        case distinct
        /// As `distinct`, but a predicate's own conjunct reads the items (a SUBQUERY testing
        /// the attachments against a type of the extension's own), so no set of rules can
        /// share or fold it. Evaluated by QueryProfile's `--evaluate`; no home is installed.
        case distinctTypes = "distinct-types"
    }

    /// The rule of each of the 10,000 extensions, in install order.
    public static func rules(_ variant: Variant) throws -> [PropertyListValue] {
        let scratch = try TemporaryDirectory(prefix: "appex-bench-probe")
        var weighted: [PropertyListValue] = []
        for entry in try CorpusRules.load(point: point) where try Fixtures.installs(entry.rule, in: scratch.url) {
            // Keep only rules whose form in this variant also installs (checked on one instance).
            if try variant == .corpus || Fixtures.installs(form(entry.rule, 0, variant), in: scratch.url) {
                weighted += Array(repeating: entry.rule, count: entry.occurrences)
            }
        }
        precondition(!weighted.isEmpty, "no share-services rule of the corpus installs")
        return (0..<extensionCount).map { index in form(weighted[index % weighted.count], index, variant) }
    }

    /// `rule` as extension `index` of `variant` holds it.
    static func form(_ rule: PropertyListValue, _ index: Int, _ variant: Variant) -> PropertyListValue {
        switch variant {
        case .corpus: rule
        case .distinct: distinct(rule, index)
        case .distinctTypes: distinctReadingItems(rule, index)
        }
    }

    /// As ``distinct(_:_:)``, but a predicate's conjunct tests the shared items against a type
    /// of the extension's own, which none of them conforms to.
    public static func distinctReadingItems(_ rule: PropertyListValue, _ index: Int) -> PropertyListValue {
        guard case .string(let format) = rule else { return distinct(rule, index) }
        return .string("(\(format)) AND SUBQUERY(extensionItems, $item, SUBQUERY($item.attachments, $a, ANY $a.registeredTypeIdentifiers "
                       + "UTI-CONFORMS-TO \"com.example.bench.type\(index)\").@count > 0).@count == 0")
    }

    /// `rule`, made distinct for extension `index` without changing what a one-attachment
    /// query matches: a predicate gains a conjunct on a UTI of its own that no type conforms
    /// to; a dictionary's first positive maximum count becomes 1,000 + `index`.
    public static func distinct(_ rule: PropertyListValue, _ index: Int) -> PropertyListValue {
        switch rule {
        case .string(let format):
            return .string("(\(format)) AND NOT (\"com.example.bench.type\(index)\" UTI-CONFORMS-TO \"public.folder\")")
        case .dictionary(var entries):
            let key = entries.keys.sorted().first { $0.hasSuffix("WithMaxCount") && (entries[$0]?.integerValue ?? 0) >= 1 }
            entries[key ?? "NSExtensionActivationSupportsAttachmentsWithMaxCount"] = .integer(1_000 + index)
            return .dictionary(entries)
        default:
            return rule
        }
    }

    /// The home for `variant`, installing it the first time in this run.
    public static func home(_ variant: Variant) throws -> AppexHome {
        let root = Fixtures.runFolder.appendingPathComponent("share-\(variant.rawValue)")
        let home = AppexHome(root: root.appendingPathComponent("home"))
        let ready = root.appendingPathComponent("READY")
        if FileManager.default.fileExists(atPath: ready.path) { return home }
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let rules = try rules(variant)
        let registry = try Registry(home: home)
        let scratch = root.appendingPathComponent("scratch")
        let started = Date()
        for app in 0..<appCount {
            let first = app * extensionsPerApp
            let url = try Fixtures.writeApp(
                "com.example.bench.app\(app)", rules: Array(rules[first..<first + extensionsPerApp]), in: scratch
            )
            try registry.install(appAt: url)
            try FileManager.default.removeItem(at: url)
        }
        let seconds = Date().timeIntervalSince(started)
        try Data("installed \(appCount) apps in \(seconds) s\n".utf8).write(to: ready)
        return home
    }
}

/// Items a host shares: `count` attachments; the last is a web URL and the others JPEG
/// images, so a rule that looks for a URL must walk them all.
public func sharedItems(attachments count: Int) -> ActivationItems {
    var attachments = Array(repeating: ActivationItems.Attachment(registeredTypeIdentifiers: ["public.jpeg"]), count: count - 1)
    attachments.append(ActivationItems.Attachment(registeredTypeIdentifiers: ["public.url"]))
    return ActivationItems([ActivationItems.Item(attributedContentText: "Look at this", attachments: attachments)])
}
