public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child started with `posix_spawn`: the baseline the cold-start and memory benchmarks
/// compare an extension launch with.
public struct ChildProcess {
    public let pid: pid_t
    /// The write end of the child's standard input, when it was given a pipe.
    private let input: Int32?
    /// The read end of the child's standard output, when it was given a pipe.
    private let output: Int32?

    /// Removes `LD_PRELOAD` from this process's environment, so the processes it starts (the
    /// baseline program, appexd and through it the extensions) don't load the malloc
    /// interposer that the benchmark plugin preloads into every benchmark: it would slow them
    /// and add to their resident memory. This process keeps the interposer it has loaded.
    public static func dropPreload() {
        unsetenv("LD_PRELOAD")
    }

    /// Starts `path` with `arguments`, with pipes for standard input and output when `piped`.
    public init(_ path: String, arguments: [String] = [], piped: Bool = false) throws {
        Self.dropPreload()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        if piped {
            guard pipe(&inputPipe) == 0, pipe(&outputPipe) == 0 else { throw BenchmarkFailure("pipe: errno \(errno)") }
            // The child gets copies at 0 and 1; the originals must not leak into it.
            for descriptor in inputPipe + outputPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        if piped {
            close(inputPipe[0])
            close(outputPipe[1])
        }
        guard result == 0 else { throw BenchmarkFailure("posix_spawn \(path): error \(result)") }
        self.pid = pid
        self.input = piped ? inputPipe[1] : nil
        self.output = piped ? outputPipe[0] : nil
    }

    /// Reads the child's standard output until a newline, and returns the line.
    public func readLine() -> String {
        guard let output else { return "" }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(output, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `line` and a newline to the child's standard input.
    public func writeLine(_ line: String) {
        guard let input else { return }
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }

    /// Closes the child's standard input and output, waits for it, and returns its wait status.
    public func wait() throws -> Int32 {
        if let input { close(input) }
        if let output { close(output) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchmarkFailure("waitpid \(pid): errno \(errno)") }
        }
        return status
    }
}
