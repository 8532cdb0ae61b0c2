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

    /// Runs the executable with `arguments` and waits for it to end.
    public func run(_ arguments: [String], in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        let pipeNames = [output, error].map {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0.fileHandleForReading.fileDescriptor)")) ?? ""
        }
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let errorData = LockedData()
        let errorReader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
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

/// Data handed from a reader thread to the test, once.
private final class LockedData: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
