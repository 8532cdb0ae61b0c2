import AppexSystem
import Glibc

/// A one-way channel used as a pipe: a connected socket pair, since the Glibc module has no
/// pipe2, and pipe() then fcntl would let a concurrent fork in another test inherit the ends.
func makePipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
    let (read, write) = try UnixSocket.pair()
    return (read, write)
}

/// Reads until end of file.
func readToEnd(_ file: FileDescriptor) throws -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { Glibc.read(file.rawValue, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { throw SystemError("read") }
        if count == 0 { return bytes }
        bytes += buffer.prefix(count)
    }
}

/// Reads until end of file, as text.
func readText(_ file: FileDescriptor) throws -> String {
    String(decoding: try readToEnd(file), as: UTF8.self)
}

/// Whether every write end of the pipe whose read end is `readEnd` is closed, everywhere in
/// this process: after draining, a non-blocking read sees end of file rather than EAGAIN.
/// It proves a descriptor was closed without counting descriptors, which parallel tests disturb.
/// It waits up to 5 s for that: a process another test starts meanwhile holds a copy of every
/// descriptor from its fork to its exec, close-on-exec or not.
func everyWriterIsClosed(_ readEnd: FileDescriptor) -> Bool {
    for _ in 0..<500 {
        if !aWriterIsOpen(readEnd) { return true }
        usleep(10_000)
    }
    return false
}

/// Whether a write end of the pipe whose read end is `readEnd` is open now, somewhere.
func aWriterIsOpen(_ readEnd: FileDescriptor) -> Bool {
    let flags = fcntl(readEnd.rawValue, F_GETFL)
    _ = fcntl(readEnd.rawValue, F_SETFL, flags | O_NONBLOCK)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { Glibc.read(readEnd.rawValue, $0.baseAddress, $0.count) }
        if count > 0 || (count < 0 && errno == EINTR) { continue }
        return count != 0
    }
}

/// Whether `raw` is open in this process.
func isOpen(_ raw: Int32) -> Bool {
    fcntl(raw, F_GETFD) >= 0
}

/// A Python program running in its own process, reading `stdin` and writing `stdout` through
/// pipes this test holds: it waits on a line from `stdin` where the test must act first.
struct PythonProgram {
    let process: ProcessDescriptor
    /// The write end of its standard input.
    let stdin: FileDescriptor
    /// The read end of its standard output.
    let stdout: FileDescriptor

    init(_ script: String) throws {
        let output = try makePipe()
        let input = try makePipe()
        process = try ProcessLaunch(executable: "/usr/bin/python3", arguments: ["-I", "-c", script],
                                    environment: [:], descriptors: [(input.read, 0), (output.write, 1)]).spawn()
        input.read.close()
        output.write.close()
        stdin = input.write
        stdout = output.read
    }

    /// Whether it has printed "ready": the line a script prints once it has set up what
    /// the test measures, before it waits on `stdin`.
    func waitUntilReady() -> Bool {
        var ready = [UInt8](repeating: 0, count: 6)
        return read(stdout.rawValue, &ready, ready.count) == 6 && ready == Array("ready\n".utf8)
    }

    /// Tells it to go on past its line from `stdin`, and waits for it to end.
    func finish() {
        stdin.close()
        _ = process.waitForExit(timeoutMilliseconds: 20_000)
        _ = process.reap()
    }
}

/// The `SystemError` that `body` throws, or nil if it throws none.
func failure(_ body: () throws -> Void) -> SystemError? {
    do {
        try body()
        return nil
    } catch {
        return error as? SystemError
    }
}
