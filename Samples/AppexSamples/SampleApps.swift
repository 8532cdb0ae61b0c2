public import AppexBundles
public import Foundation

/// The sample containing apps that ship with Appex: Notes, Photos, Text Tools and System Monitor, with Share,
/// Action and Today extensions whose rules use both forms. The demo and the tests install them.
public enum SampleApps {
    /// The bundle templates, as shipped in this module's resources.
    public static var templates: [URL] {
        ["Notes.app", "Photos.app", "TextTools.app", "Monitor.app"].map { AppexBuild.resources.appendingPathComponent($0) }
    }

    /// The build settings the samples' Info.plists use.
    public static let settings = ["MARKETING_VERSION": "1.0", "CURRENT_PROJECT_VERSION": "1"]

    /// Assembles every sample app into `folder` from its template and the programs the
    /// samples' package built (`SamplePackage`, built first if need be), and returns their URLs.
    public static func assemble(into folder: URL, settings extra: [String: String] = [:]) throws(SampleAssemblyError) -> [URL] {
        let products: URL
        do { products = try SamplePackage.products() } catch { throw .build(error) }
        let assembler = BundleAssembler(products: products, settings: settings.merging(extra) { _, new in new })
        var apps: [URL] = []
        for template in templates {
            do { apps.append(try assembler.assemble(template: template, into: folder)) } catch { throw .assembly(error) }
        }
        return apps
    }
}

/// Why the sample apps could not be assembled: their package didn't build, or a bundle
/// couldn't be assembled from it.
public enum SampleAssemblyError: Error, Sendable, CustomStringConvertible {
    case build(SampleBuildError)
    case assembly(BundleAssemblyError)

    public var description: String {
        switch self {
        case .build(let error): "\(error)"
        case .assembly(let error): "\(error)"
        }
    }
}
