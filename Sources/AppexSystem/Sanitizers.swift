import CAppexSystem
import Foundation

/// The sanitizer this process was built with (`swift build --sanitize=address` or `thread`, as
/// Support/sanitize does), and what it costs every process. appexd, built the same way as
/// its extensions in the sanitized test runs, allows for that cost in the limits it sets.
public enum Sanitizers {
    /// A sanitizer Support/sanitize builds with.
    public enum Kind: Sendable {
        case address, thread
    }

    /// The sanitizer built in, if any.
    public static let active: Kind? = switch appex_sanitizer() {
    case 1: .address
    case 2: .thread
    default: nil
    }

    /// The environment variables of a sanitized run (Support/sanitize) that a process built
    /// the same way needs as well: the sanitizers' options (LeakSanitizer off, ThreadSanitizer
    /// going on after a report) and the crash backtracer off.
    public static let settingNames = ["ASAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE"]

    /// Those of ``settingNames`` this process has, to pass on to a child it starts with an
    /// environment of its own making.
    public static var settings: [String: String] {
        ProcessInfo.processInfo.environment.filter { settingNames.contains($0.key) }
    }

    /// Whether AddressSanitizer or ThreadSanitizer was built in. A sanitized process reserves
    /// terabytes of shadow memory as it starts, so a limit on address space would stop it there.
    public static var areActive: Bool { active != nil }

    /// Resident memory the sanitizer built in adds to a process, shadow memory above all: 0
    /// in an ordinary build. An extension that holds 18 to 22 MiB resident (the sample
    /// widgets, and Add to Notes) holds 47 to 58 MiB under ThreadSanitizer and 33 to 37 MiB
    /// under AddressSanitizer, and the share grows with the heap (and AddressSanitizer's
    /// quarantine of freed memory).
    public static var residentAllowance: Int {
        switch active {
        case .thread: 64 << 20
        case .address: 32 << 20
        case nil: 0
        }
    }
}
