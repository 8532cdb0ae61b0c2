import AppexBundles
import AppexLocking
public import AppexRegistry
import AppexSamples
public import Foundation
import Glibc

/// The sample apps (Notes, Photos, Text Tools), assembled once per test process into a
/// folder that is removed when the process exits. Tests install from it and must not change
/// it; a test that needs other build settings assembles its own with `SampleApps.assemble`.
///
/// Assembling copies every sample executable, hundreds of megabytes in a debug build, so
/// doing it once instead of once per test takes most of the file copying out of a run.
public enum AssembledSamples {
    /// The assembled apps, in `SampleApps.templates` order: Notes, Photos, Text Tools.
    public static func apps() async throws -> [URL] {
        try await onThread { try build.get() }
    }

    /// Installs the assembled apps named `names` (all of them by default) into `registry`, on
    /// a thread of its own: installing copies every executable once more.
    public static func install(into registry: Registry, only names: Set<String>? = nil) async throws {
        let apps = try await apps().filter { names?.contains($0.lastPathComponent) ?? true }
        try await onThread {
            for app in apps { _ = try registry.install(appAt: app) }
        }
    }

    /// The first caller assembles, on its own thread; the others wait for it.
    private static let build: Result<[URL], SampleAssemblyError> = {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
            .appendingPathComponent("appex-samples-\(getpid())")
        removal.withLock { $0 = folder.path }
        atexit { removeAssembledSamples() }
        return Result { () throws(SampleAssemblyError) in try SampleApps.assemble(into: folder) }
    }()
}

/// The folder to remove at exit.
private let removal = Locked<String?>(nil)

private func removeAssembledSamples() {
    guard let path = removal.withLock({ $0 }) else { return }
    try? FileManager.default.removeItem(atPath: path)
}
