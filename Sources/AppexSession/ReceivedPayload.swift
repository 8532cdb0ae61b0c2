public import AppexIPC
public import AppexItems
public import AppexSystem
public import AppexWire
import AppexCore
public import Foundation

/// A payload that arrived from the other process, with the descriptor its slot refers to,
/// turned into what a provider's handler gives: bytes, a file, or an item.
///
/// Descriptors are used without copying where the caller allows it:
/// - as bytes, a descriptor is mapped, so the first byte is readable at once whatever the
///   size; but a file from an extension is mapped only if it is a sealed memory file, and read
///   otherwise, since the extension could truncate it under the mapping (``Sender``);
/// - as a file, it is reached through a link named after the file to `/proc/self/fd/N`,
///   which lives only while the handler's completion runs, as Apple's file loads do;
/// - as an item, a file is copied into the temporary directory, since an item outlives any
///   handler. The copy stays until the process's temporary directory is cleaned.
public struct ReceivedPayload: Sendable {
    /// Who sent a payload, which decides whether a file it sent may be mapped.
    public enum Sender: Sendable {
        /// The host, which the user runs unsandboxed and trusts: its files are mapped.
        case host
        /// An extension, which nothing trusts: only a memory file sealed against shrinking is
        /// mapped, since truncating a mapped file would end this process with SIGBUS
        /// (``AppexSystem/FileDescriptor/untrustedContents()``).
        case `extension`
    }

    /// The payload as it came.
    public let payload: Payload
    /// The descriptor of a ``Payload/descriptor(slot:length:filename:)`` payload.
    public let descriptor: FileDescriptor?
    /// Who sent it.
    private let sender: Sender

    /// The payload of `message`, from `sender`, resolving its slot against the message's descriptors.
    public init(_ payload: Payload, in message: IncomingMessage, from sender: Sender) throws(ErrorInfo) {
        self.payload = payload
        self.sender = sender
        if let slot = payload.slot {
            guard let descriptor = message.descriptor(at: slot) else {
                throw AppexErrorDomain.runtimeError(
                    7, "a \(message.message.name) names descriptor slot \(slot), but its frame carried \(message.descriptors.count)")
            }
            self.descriptor = descriptor
        } else {
            self.descriptor = nil
        }
    }

    /// The payload as bytes.
    public func data(typeIdentifier: String) throws -> Data {
        switch payload {
        case .data(let data): return data
        case .descriptor: return try mapped(typeIdentifier)
        case .item(let value): return value.itemValue.bytes
        case .url(let string): return Data(string.utf8)
        case .error(let error): throw error.nsError
        }
    }

    /// Runs `body` with a file URL for the payload, valid until `body` returns.
    public func withFile(typeIdentifier: String, suggestedName: String?, _ body: (URL) -> Void) throws {
        let directory = try Self.makeDirectory("appex-load")
        defer { try? FileManager.default.removeItem(at: directory) }
        switch payload {
        case .descriptor(_, _, let filename):
            let link = directory.appendingPathComponent(Self.name(filename, suggestedName))
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/proc/self/fd/\(descriptor!.rawValue)")
            withExtendedLifetime(descriptor) { body(link) }
        case .error(let error):
            throw error.nsError
        default:
            let file = directory.appendingPathComponent(Self.name("", suggestedName))
            try data(typeIdentifier: typeIdentifier).write(to: file)
            body(file)
        }
    }

    /// The payload as an item: text, a URL, bytes, a property-list value, or for a file the
    /// URL of a copy.
    public func item(typeIdentifier: String, suggestedName: String?) throws -> any NSItemProviderValue {
        switch payload {
        case .data(let data):
            return data
        case .item(let value):
            return value.itemValue.value
        case .url(let string):
            guard let url = URL(string: string) else {
                throw AppexErrorDomain.runtimeError(7, "the \(typeIdentifier) item is the URL \"\(string)\", which is not a valid URL").nsError
            }
            return url
        case .descriptor(_, _, let filename):
            guard !filename.isEmpty else { return try mapped(typeIdentifier) }
            let copy = try Self.makeDirectory("appex-received").appendingPathComponent(Self.name(filename, suggestedName))
            do {
                try descriptor!.copyContents(toNewFileAt: copy.path)
            } catch {
                throw AppexErrorDomain.runtimeError(9, "the \(typeIdentifier) file could not be copied to \(copy.path): \(error)").nsError
            }
            return copy
        case .error(let error):
            throw error.nsError
        }
    }

    private func mapped(_ typeIdentifier: String) throws -> Data {
        do {
            switch sender {
            case .host: return try descriptor!.mapContents()
            case .extension: return try descriptor!.untrustedContents()
            }
        } catch {
            throw AppexErrorDomain.runtimeError(9, "the \(typeIdentifier) content could not be read: \(error)").nsError
        }
    }

    private static func name(_ filename: String, _ suggestedName: String?) -> String {
        fileName(filename.isEmpty ? (suggestedName ?? "item") : filename)
    }

    /// `candidate` made a file name that stays in whatever folder it is put in: a `/` becomes
    /// `_`, and an empty name, `.` or `..` becomes `item`. Names from another process (a
    /// suggested name, a file's name) pass through here before anyone saves under them.
    static func fileName(_ candidate: String) -> String {
        let safe = candidate.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        return safe.isEmpty || safe == "." || safe == ".." ? "item" : safe
    }

    private static func makeDirectory(_ prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory
    }
}

extension NSItemProvider.ItemValue {
    /// The value's bytes, as an item loaded as data gives them.
    var bytes: Data {
        switch self {
        case .string(let text): Data(text.utf8)
        case .url(let url): Data(url.absoluteString.utf8)
        case .data(let data): data
        case .propertyList(let list): (try? list.xmlData()) ?? Data()
        }
    }
}
