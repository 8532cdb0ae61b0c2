import Foundation

extension UIApplication {
    /// The keys of ``launchOptions``, as Apple's `UIApplication.LaunchOptionsKey`.
    public struct LaunchOptionsKey: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The URL the app was launched to open (a `URL`): an extension of an app declaring
        /// its scheme in `CFBundleURLTypes` asked for it, and the user confirmed.
        public static let url = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsURLKey")
        /// The bundle identifier of the extension that asked to open the URL (a `String`).
        public static let sourceApplication = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsSourceApplicationKey")
    }

    /// Why the app was launched, as `application(_:didFinishLaunchingWithOptions:)` gets it
    /// on Apple's systems: empty when the user started it, ``LaunchOptionsKey/url`` when
    /// appexd launched it to open a URL.
    ///
    /// ```swift
    /// if let url = UIApplication.shared.launchOptions[.url] as? URL {
    ///     show(url)   // notes://note/Ideas-1A2B3C4D
    /// }
    /// ```
    public var launchOptions: [LaunchOptionsKey: any Sendable] {
        Self.launchOptions(environment: ProcessInfo.processInfo.environment)
    }

    /// The launch options an environment gives: appexd sets `APPEX_OPEN_URL` and
    /// `APPEX_SOURCE_APPLICATION` when it launches an app to open a URL.
    static func launchOptions(environment: [String: String]) -> [LaunchOptionsKey: any Sendable] {
        var options: [LaunchOptionsKey: any Sendable] = [:]
        if let written = environment["APPEX_OPEN_URL"], let url = URL(string: written) {
            options[.url] = url
            if let source = environment["APPEX_SOURCE_APPLICATION"], !source.isEmpty { options[.sourceApplication] = source }
        }
        return options
    }
}
