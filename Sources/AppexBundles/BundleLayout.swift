/// The names that make up a bundle on disk: iOS's flat layout, with ELF executables.
///
/// ```
/// Notes.app/
///   Info.plist  Entitlements.plist  notes  en.lproj/InfoPlist.strings
///   Frameworks/libNotesKit.so
///   PlugIns/NotesShare.appex/{Info.plist, Entitlements.plist, NotesShare}
/// ```
public enum BundleLayout {
    public static let appSuffix = ".app"
    public static let extensionSuffix = ".appex"
    public static let infoPlist = "Info.plist"
    public static let entitlementsPlist = "Entitlements.plist"
    public static let plugIns = "PlugIns"
    public static let frameworks = "Frameworks"
    public static let localizationSuffix = ".lproj"
    public static let infoPlistStrings = "InfoPlist.strings"

    /// The most files one bundle may hold; more is treated as hostile, not as an app.
    public static let maximumFileCount = 20_000
    /// The deepest folder nesting one bundle may have.
    public static let maximumDepth = 32
    /// The most bytes of files one bundle may hold: an install copies them all, so a sparse
    /// file of terabytes would otherwise fill the disk.
    public static let maximumSize: Int64 = 8 << 30

    /// Whether `path` (relative to the app) is a folder an extension's sandbox grants by its
    /// path: `Frameworks`, `PlugIns` and each extension in it. These must be real folders,
    /// since the launcher follows no link there.
    static func isGrantedFolder(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        switch components.count {
        case 1: return components[0] == Substring(frameworks) || components[0] == Substring(plugIns)
        case 2: return components[0] == Substring(plugIns) && components[1].hasSuffix(extensionSuffix)
        default: return false
        }
    }

    /// Whether a file name looks like a shared library: `libX.so` or `libX.so.1.2`.
    static func isSharedLibraryName(_ name: String) -> Bool {
        name.hasSuffix(".so") || name.contains(".so.")
    }
}
