import AppexBrowser
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Glibc

/// The real appex-browser, started as a browser starts it, with pipes on its standard input
/// and output: for the tests of what it does with what a peer sends.
final class NativeHostProcess {
    let process: ProcessDescriptor
    let input: FileDescriptor
    private let output: FileDescriptor
    private var decoder = NativeMessageDecoder(limit: 1 << 24)

    static var executable: URL { AppexBuild.products.appendingPathComponent("appex-browser") }

    init(arguments: [String] = [BrowserExtension.chromiumOrigin], environment: [String: String]) throws {
        let toHost = try FileDescriptor.pipe()
        let fromHost = try FileDescriptor.pipe()
        let errors = try FileDescriptor.open("/dev/null", flags: O_WRONLY)
        process = try ProcessLaunch(executable: Self.executable.path, arguments: arguments, environment: environment,
                                    descriptors: [(toHost.read, 0), (fromHost.write, 1), (errors, 2)]).spawn()
        toHost.read.close()
        fromHost.write.close()
        errors.close()
        input = toHost.write
        output = fromHost.read
    }

    deinit {
        input.close()
        output.close()
        process.end(graceMilliseconds: 5_000)
    }

    /// Writes raw bytes to the host.
    func write(_ bytes: [UInt8]) throws {
        try input.write(bytes)
    }

    /// Writes one framed message.
    func send(_ json: String) throws {
        try write(NativeMessageDecoder.frame(Array(json.utf8)))
    }

    /// The next message from the host, as a JSON object; nil once it has closed its output.
    func receive() async throws -> [String: Any]? {
        while true {
            if case .message(let bytes)? = decoder.next() {
                return try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            }
            let output = output
            let chunk = try await onThread { () throws -> [UInt8] in
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                let count = buffer.withUnsafeMutableBytes { Glibc.read(output.rawValue, $0.baseAddress, $0.count) }
                return count > 0 ? Array(buffer[..<count]) : []
            }
            if chunk.isEmpty { return nil }
            decoder.append(chunk)
        }
    }

    /// Closes the host's input, as a browser does when the extension disconnects.
    func closeInput() {
        input.close()
    }

    /// The most memory the host has had resident, in KiB (VmHWM).
    var peakResidentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processID)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
