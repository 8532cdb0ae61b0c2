import AppexCore
import AppexRegistry
import Foundation

/// The installed app or extension that makes a call to appexd for itself, as appexd found it
/// from the kernel: the extension process it launched, or the bundle whose executable a
/// client process runs. What the call says about its sender is never believed.
struct CallingBundle {
    var identifier: String
    /// The app it is or belongs to.
    var appIdentifier: String
    var entitlements: Entitlements
    /// Whether it is an extension, which runs in its sandbox; an app runs as the user.
    var isExtension: Bool

    /// Why a client is no installed bundle.
    struct Unidentified: Error {
        var reason: String
    }

    /// The bundle an extension process appexd launched runs.
    init(_ installed: InstalledExtension) {
        identifier = installed.identifier
        appIdentifier = installed.appIdentifier
        entitlements = installed.entitlements
        isExtension = true
    }

    /// The bundle an app's process runs.
    init(_ app: InstalledApp) {
        identifier = app.identifier
        appIdentifier = app.identifier
        entitlements = app.entitlements
        isExtension = false
    }

    /// The installed app or extension whose executable is `executablePath`, which client
    /// `pid` runs.
    static func find(runningAs executablePath: String?, pid: Int32, registry: Registry) -> Result<CallingBundle, Unidentified> {
        guard let executablePath else {
            return .failure(Unidentified(reason: "pid \(pid) has exited or its executable can't be read"))
        }
        let apps: [InstalledApp]
        do {
            apps = try registry.apps()
        } catch {
            return .failure(Unidentified(reason: "the registry could not be read (\(error))"))
        }
        func runs(_ executable: URL) -> Bool { executable.resolvingSymlinksInPath().path == executablePath }
        for app in apps {
            if runs(app.executableURL) { return .success(CallingBundle(app)) }
            for plugIn in app.extensions where runs(plugIn.executableURL) {
                return .success(CallingBundle(plugIn))
            }
        }
        return .failure(Unidentified(reason: "pid \(pid) runs \(executablePath), which is not the executable of an installed app or extension"))
    }
}
