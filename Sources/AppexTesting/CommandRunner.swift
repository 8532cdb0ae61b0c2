public import Foundation

/// Runs a built executable of this package, such as `appex`, as a child process and
/// captures what it prints, so tests check the real command, exit status and all.
public struct CommandRunner: Sendable {
    /// What a run printed and how it ended.
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
        /// The child's process identifier.
        public var processIdentifier: Int32
        /// The kernel names of the pipes the run used (`pipe:[1234]`), all closed by now.
        public var pipeNames: [String]
    }

    /// The executable.
    public var executable: URL
    /// The environment it runs with.
    public var environment: [String: String]

    public init(executable: URL, environment: [String: String]) {
        self.executable = executable
        self.environment = environment
    }

    /// Runs the executable with `arguments` and awaits its end. The waiting happens on a
    /// thread of its own (``onThread(_:)``), never on the cooperative pool. `input`, when
    /// given, is written to its standard input through a pipe; otherwise that is /dev/null.
    public func run(_ arguments: [String], in directory: URL? = nil, input: Data? = nil) async throws -> Result {
        try await onThread { try runBlocking(arguments, in: directory, input: input) }
    }

    private func runBlocking(_ arguments: [String], in directory: URL?, input: Data?) throws -> Result {
        let inputPipe = input.map { _ in Pipe() }
        let output = Pipe()
        let error = Pipe()
        let pipeNames = [output, error].map {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0.fileHandleForReading.fileDescriptor)")) ?? ""
        }
        let process = try start {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = environment
            if let directory { process.currentDirectoryURL = directory }
            process.standardOutput = output
            process.standardError = error
            process.standardInput = inputPipe ?? FileHandle.nullDevice
            return process
        }
        if let inputPipe, let input {
            // Written on a thread of its own, so a child that reads only some of it never blocks the test.
            let writer = inputPipe.fileHandleForWriting
            Thread {
                signal(SIGPIPE, SIG_IGN)
                try? writer.write(contentsOf: input)
                try? writer.close()
            }.start()
            try? inputPipe.fileHandleForReading.close()
        }
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let errorData = HandedOverData()
        let errorRead = DispatchSemaphore(value: 0)
        Thread {
            errorData.value = error.fileHandleForReading.readDataToEndOfFile()
            errorRead.signal()
        }.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorRead.wait()
        try output.fileHandleForReading.close()
        try error.fileHandleForReading.close()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value, as: UTF8.self),
            processIdentifier: process.processIdentifier,
            pipeNames: pipeNames
        )
    }
}

/// Starts a process `make` makes, again while the kernel finds its executable busy
/// (ETXTBSY), for up to 60 s. A program the test process has just copied, into a bundle it
/// installs, can be open for writing for a moment after the copy: in a child that another of
/// its threads forked meanwhile, until that child execs. Under AddressSanitizer that moment
/// once outlasted 10 s (CI run 13), so the wait is longer than any spawn takes.
private func start(_ make: () -> Process) throws -> Process {
    let deadline = ContinuousClock.now + .seconds(60)
    while true {
        let process = make()
        do {
            try process.run()
            return process
        } catch let error as NSError where (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ETXTBSY) && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

/// Data a reader thread hands to the test once, through a semaphore.
private final class HandedOverData: @unchecked Sendable {
    // @unchecked: written once by the reader thread before it signals, read only after the wait.
    var value = Data()
}
