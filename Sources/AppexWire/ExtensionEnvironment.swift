/// The environment variables appexd launches an extension with, beside its descriptors 3
/// (control) and 4 (session).
///
/// The registry read the bundle's Info.plist when the app was installed, so appexd passes
/// what `NSExtensionMain` needs from it, and the extension starts without parsing it again.
/// An extension run without them reads its Info.plist itself.
public enum ExtensionEnvironment {
    /// The installed bundle's folder.
    public static let bundlePath = "APPEX_EXTENSION_BUNDLE"
    /// `CFBundleIdentifier`.
    public static let bundleIdentifier = "APPEX_BUNDLE_IDENTIFIER"
    /// `NSExtension` → `NSExtensionPrincipalClass`, set only when the Info.plist names one.
    public static let principalClass = "APPEX_PRINCIPAL_CLASS"
    /// `CFBundleExecutable`, the module an unqualified principal class is looked for in.
    public static let executableName = "APPEX_EXECUTABLE_NAME"
    /// The app groups of the bundle's entitlements, separated by commas, which no group
    /// identifier holds.
    public static let applicationGroups = "APPEX_APPLICATION_GROUPS"
    /// The uniform types installed apps declare, the containing app's first, as a JSON
    /// object of `UTExportedTypeDeclarations` and `UTImportedTypeDeclarations`: the
    /// extension's `UTType` knows them, as an extension's does on Apple's systems
    /// (`UTTypeGraph.process`, which reads this variable by its name).
    public static let typeDeclarations = "APPEX_TYPE_DECLARATIONS"
    /// Set to 1 when the extension is to stop itself before its principal class is made, for
    /// a debugger to attach (`appex run ID --wait-for-debugger`).
    public static let waitForDebugger = "APPEX_WAIT_FOR_DEBUGGER"
    /// How long, in milliseconds, appexd lets the process end by itself once it is to end,
    /// before it kills it: the time the runtime gives expiring activities.
    public static let terminationGrace = "APPEX_EXTENSION_TERMINATION_GRACE_MS"

    /// The variables `NSExtensionMain` reads to start.
    public static let startSettings = [bundlePath, bundleIdentifier, principalClass, executableName, applicationGroups, waitForDebugger]
}
