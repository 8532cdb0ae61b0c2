import AppexHost
import AppexWire
import ArgumentParser
import Foundation

struct PsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ps",
        abstract: "List the live extension processes: pid, extension, host, memory, age and state.",
        discussion: "Asks appexd, starting it if it isn't running."
    )

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let processes: [ExtensionProcess]
        do {
            let daemon = try await DaemonClient.connect(role: .cli)
            defer { daemon.close() }
            processes = try await daemon.processes()
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(error)")
        }
        if json { return try Output.json(processes.map(ProcessRow.init)) }
        print("PID".padded(7) + "EXTENSION".padded(36) + "HOST".padded(22) + "MEMORY".padded(10) + "AGE".padded(8) + "STATE")
        for process in processes {
            let row = ProcessRow(process)
            print(String(row.pid).padded(7) + row.extensionIdentifier.padded(36) + "\(row.hostName) (\(row.hostPID))".padded(22)
                  + "\(row.residentKiB / 1024) MiB".padded(10) + Self.age(row.ageMilliseconds).padded(8) + row.state)
        }
    }

    static func age(_ milliseconds: UInt64) -> String {
        milliseconds < 10_000 ? String(format: "%.1fs", Double(milliseconds) / 1000) : "\(milliseconds / 1000)s"
    }
}

/// One line of `appex ps`, as JSON prints it.
struct ProcessRow: Encodable {
    var pid: Int32
    var extensionIdentifier: String
    var hostPID: Int32
    var hostName: String
    var residentKiB: UInt64
    var memoryLimitKiB: UInt64
    var ageMilliseconds: UInt64
    var state: String
    var activeRequests: Int

    init(_ process: ExtensionProcess) {
        pid = process.pid
        extensionIdentifier = process.extensionIdentifier
        hostPID = process.hostPID
        hostName = process.hostName
        residentKiB = process.residentBytes / 1024
        memoryLimitKiB = process.memoryLimit / 1024
        ageMilliseconds = process.ageMilliseconds
        state = process.state
        activeRequests = process.activeRequests
    }
}
