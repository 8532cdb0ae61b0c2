import Foundation

/// The process's environment, read in one place so that tests can see what code reads.
enum ProcessEnvironment {
    static var variables: [String: String] { ProcessInfo.processInfo.environment }
}
