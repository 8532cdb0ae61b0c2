import AppexSamples
import AppexSystem
import Foundation
import Glibc
import Testing

/// The AppexGroupsHelper executable running as a second process of the group, with its
/// standard output read line by line.
final class GroupsHelper {
    static let executable = AppexBuild.products.appendingPathComponent("AppexGroupsHelper").path

    let process: ProcessDescriptor
    private let output: FileDescriptor
    private var buffered: [UInt8] = []
    private var reaped = false

    init(_ arguments: [String]) throws {
        let (read, write) = try FileDescriptor.pipe()
        // What it says on standard error (why it failed, a sanitizer's report) goes to the test's.
        let errors = FileDescriptor(owning: dup(STDERR_FILENO))
        process = try ProcessLaunch(executable: Self.executable, arguments: arguments,
                                    environment: ["PATH": "/usr/bin:/bin"].merging(Sanitizers.settings) { $1 },
                                    descriptors: [(write, 1), (errors, 2)], diesWithParent: true).spawn()
        write.close()
        errors.close()
        output = read
    }

    /// The next line it prints, or nil if none comes within `seconds`.
    func nextLine(within seconds: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                defer { buffered.removeSubrange(...end) }
                return String(decoding: buffered[..<end], as: UTF8.self)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var poller = pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(output.rawValue, $0.baseAddress, $0.count) }
            if count <= 0 { return nil }
            buffered += chunk.prefix(count)
        }
    }

    /// Waits for it to end, and returns how.
    @discardableResult
    func finish(within seconds: Int32 = 60) -> AppexSystem.ExitStatus? {
        guard process.waitForExit(timeoutMilliseconds: seconds * 1000) else { return nil }
        reaped = true
        return process.reap()
    }

    /// Kills it with SIGKILL and reaps it.
    func kill() {
        process.send(signal: SIGKILL)
        finish()
    }

    deinit {
        if !reaped { kill() }
        output.close()
    }
}
