import AppexCore
import AppexItems
import AppexSystem
import Foundation
import Glibc

/// What a command reads where it takes a file or a text. `-` is standard input, as for every
/// Unix tool, and what can't be read is said in the system's words, with what it was.
enum CommandInput {
    /// The name that means standard input.
    static let standardInput = "-"

    /// The most bytes of standard input sent as a file when it is a pipe, kept in a sealed
    /// memory file until the extension has read them: 1 GiB.
    static let pipedFileLimit = 1 << 30

    /// The most bytes of standard input taken as text: 16 MiB.
    static let textLimit = 16 << 20

    /// The bytes of the file at `path`, or of standard input for `-`, refused when there
    /// are more than `limit`. `what` names it in errors, such as "the items file".
    static func read(_ path: String, what: String, limit: Int) throws -> Data {
        let name = path == standardInput ? "\(what) on standard input" : "\(what) \(path)"
        let descriptor: Int32
        if path == standardInput {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw unreadable(name, errno: errno) }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(name) is a folder; give a file")
        }
        return try readAll(descriptor, name: name, limit: limit)
    }

    /// Standard input as text, less the one line break that ends what `echo` prints.
    static func text(option: String) throws -> String {
        let data = try read(standardInput, what: option, limit: textLimit)
        guard var text = String(validating: data, as: UTF8.self) else {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(option) on standard input is not UTF-8 text; send such bytes as a file: -")
        }
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Standard input as a file to send. Redirected from a file (`< photo.jpg`), it is that
    /// file, handed over as any other, typed by its name; from a pipe, its bytes go into a
    /// memory file, typed by what they begin with.
    static func file() throws -> NSItemProvider {
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0 else { throw unreadable("standard input", errno: errno) }
        if status.st_mode & S_IFMT == S_IFREG {
            let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0")) ?? ""
            let url = URL(fileURLWithPath: path.hasPrefix("/") && FileManager.default.fileExists(atPath: path) ? path : "/proc/self/fd/0")
            guard let provider = NSItemProvider(contentsOf: url) else { throw unreadable("standard input", errno: ENOENT) }
            return provider
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            throw CommandFailure(status: CommandFailure.trouble, "error: standard input is a folder; give a folder by its path")
        }
        let memory: FileDescriptor
        let head: [UInt8]
        do {
            memory = try MemoryFile.sealed(name: "appex-standard-input", readingToEndOf: STDIN_FILENO, limit: pipedFileLimit)
            head = try memory.read(upTo: 64, at: 0)
        } catch where error.errno == EFBIG {
            throw CommandFailure(status: CommandFailure.trouble, "error: standard input is over \(pipedFileLimit) bytes, the most taken from a pipe; redirect a file instead (< FILE), which is handed over without a copy")
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: standard input could not be kept to send: \(error)")
        }
        // The memory file stays open until the command ends, for the extension to read.
        let url = URL(fileURLWithPath: "/proc/self/fd/\(memory.take())")
        let provider = NSItemProvider(contentsOf: url, contentType: ContentSniffing.type(of: Data(head)))
        provider.suggestedName = nil
        return provider
    }

    private static func readAll(_ descriptor: Int32, name: String, limit: Int) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(name, errno: errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
            guard data.count <= limit else {
                throw CommandFailure(status: CommandFailure.trouble, "error: \(name) is over \(limit) bytes, the most taken")
            }
        }
    }

    private static func unreadable(_ name: String, errno code: Int32) -> CommandFailure {
        CommandFailure(status: CommandFailure.trouble, "error: can't read \(name): \(String(cString: strerror(code)))")
    }
}
