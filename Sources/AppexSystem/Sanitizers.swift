import CAppexSystem

/// Whether this process was built with a sanitizer (`swift build --sanitize=address` or
/// `thread`, as Support/sanitize does). A sanitized process reserves terabytes of shadow
/// memory as it starts, so a limit on address space would stop it there; appexd, built the
/// same way as its extensions in the sanitized test runs, then sets none.
public enum Sanitizers {
    /// Whether AddressSanitizer or ThreadSanitizer was built in.
    public static let areActive = appex_sanitizers_active() != 0
}
