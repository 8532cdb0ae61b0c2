/// The version of Appex that every program of this build reports with `--version`.
public enum AppexVersion {
    /// The release, as `appex --version` prints it.
    public static let release = "0.1.0"
}
