public import Foundation

/// The build of the running program, from an Appex checkout.
public enum AppexBuild {
    /// The build folder the running program was built into, which holds `appex`, `appexd`,
    /// the launcher, `libAppexKit.so` and the test fixtures (`.build/debug`, for example).
    public static var products: URL {
        resources.deletingLastPathComponent()
    }

    /// This module's resources (the samples' templates), which SwiftPM builds into that folder.
    static var resources: URL {
        Bundle.module.resourceURL ?? Bundle.module.bundleURL
    }
}
