public import AppexBundles
public import Foundation

/// The sample containing apps that ship with Appex: Notes, Photos, Text Tools and System Monitor, with Share,
/// Action and Today extensions whose rules use both forms. The demo and the tests install them.
public enum SampleApps {
    /// The bundle templates, as shipped in this module's resources.
    public static var templates: [URL] {
        ["Notes.app", "Photos.app", "TextTools.app", "Monitor.app"].map { resources.appendingPathComponent($0) }
    }

    /// The build settings the samples' Info.plists use.
    public static let settings = ["MARKETING_VERSION": "1.0", "CURRENT_PROJECT_VERSION": "1"]

    /// The folder that holds the samples' built executables: the build folder these
    /// resources were built into, beside `appex` itself.
    public static var products: URL {
        resources.deletingLastPathComponent()
    }

    /// Assembles every sample app into `folder` and returns their URLs.
    public static func assemble(into folder: URL, settings extra: [String: String] = [:]) throws(BundleAssemblyError) -> [URL] {
        let assembler = BundleAssembler(products: products, settings: settings.merging(extra) { _, new in new })
        var apps: [URL] = []
        for template in templates {
            apps.append(try assembler.assemble(template: template, into: folder))
        }
        return apps
    }

    private static var resources: URL {
        Bundle.module.resourceURL ?? Bundle.module.bundleURL
    }
}
