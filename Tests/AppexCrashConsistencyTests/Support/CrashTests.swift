import Foundation
import Testing

/// When the crash-consistency tests run: with `APPEX_CRASH_TESTS=1`, as `.ci/run` sets for a
/// run of their own after the whole suite. They start about 1,500 processes, and on two cores
/// that load made the timing-sensitive transfer tests beside them fail.
enum CrashTests {
    static let areWanted = ProcessInfo.processInfo.environment["APPEX_CRASH_TESTS"] == "1"
    static let whyApart: Comment = "APPEX_CRASH_TESTS=1 runs them, on their own: on two cores, their 1,500 processes starve the timing-sensitive suites beside them"
}
