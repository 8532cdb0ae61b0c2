public import AppexItems
public import AppexWire
import AppexCore
import AppexSystem
import Foundation

/// Turns what a provider's handler produced into a wire ``Payload``.
///
/// - Bytes up to ``inlineLimit`` travel inside the frame; larger ones go into a sealed
///   memory file, passed as a descriptor.
/// - A file is opened and passed as a descriptor, with its name: the receiver reads it
///   without a path, and nothing is copied.
/// - An item travels as a value: text, a URL, bytes or a property list. A file URL that
///   stands for a file's contents (a `public.jpeg` item that is a URL) is passed as that file.
public enum PayloadEncoder {
    /// The largest payload of bytes sent inside a frame; larger ones go as memory files.
    public static let inlineLimit = 64 << 10

    /// The largest item value sent inside a frame. A frame holds 1 MiB; the rest is left
    /// for the message around it.
    public static let itemLimit = 768 << 10

    /// The wire payload for `payload`, a representation of `typeIdentifier`, adding any
    /// descriptor to `slots`.
    public static func encode(
        _ payload: NSItemProvider.Representation.Payload, typeIdentifier: String, into slots: inout DescriptorSlots
    ) throws(ErrorInfo) -> Payload {
        switch payload {
        case .data(let data):
            return try encode(data, typeIdentifier: typeIdentifier, into: &slots)
        case .file(let url, _):
            return try encode(file: url, typeIdentifier: typeIdentifier, into: &slots)
        case .item(let value):
            let item = value.itemValue
            if let file = item.contentFile(registeredAs: typeIdentifier) {
                return try encode(file: file, typeIdentifier: typeIdentifier, into: &slots)
            }
            switch item {
            case .string(let text):
                try checkItemSize(text.utf8.count, typeIdentifier)
                return .item(.string(text))
            case .url(let url):
                return .url(url.absoluteString)
            case .data(let data):
                return try encode(data, typeIdentifier: typeIdentifier, into: &slots)
            case .propertyList(let list):
                try checkItemSize(list.estimatedWireSize, typeIdentifier)
                return .item(list)
            }
        }
    }

    private static func encode(_ data: Data, typeIdentifier: String, into slots: inout DescriptorSlots) throws(ErrorInfo) -> Payload {
        guard data.count > inlineLimit else { return .data(data) }
        let file: FileDescriptor
        do {
            file = try data.withUnsafeBytes { bytes throws(SystemError) in try MemoryFile.sealed(name: typeIdentifier, bytes: bytes) }
        } catch {
            throw AppexErrorDomain.runtimeError(
                9, "\(data.count) bytes of \(typeIdentifier) could not be put in a memory file: \(error)",
                recovery: "Check the memory available, or offer the content as a file representation.")
        }
        return .descriptor(slot: try slots.add(file, for: "\(typeIdentifier) data"), length: data.count, filename: "")
    }

    private static func encode(file url: URL, typeIdentifier: String, into slots: inout DescriptorSlots) throws(ErrorInfo) -> Payload {
        let file: FileDescriptor
        let length: Int
        do {
            // A file this process was handed is handed on through its descriptor: its path
            // may be closed to a sandboxed process, and it stays the same file, uncopied.
            file = try DescriptorLink.descriptor(behind: url) ?? FileDescriptor.open(url.path)
            length = try file.size()
            guard try !file.isDirectory() else {
                throw AppexErrorDomain.runtimeError(
                    9, "\(url.path), the \(typeIdentifier) file, is a folder, and folders can't be handed to another process yet",
                    recovery: "Offer an archive of the folder, or its files one by one.")
            }
        } catch let error as ErrorInfo {
            throw error
        } catch {
            throw AppexErrorDomain.runtimeError(
                9, "the \(typeIdentifier) file \(url.path) could not be opened to hand over: \(error)",
                recovery: "Check that the file exists and is readable by the host.")
        }
        return .descriptor(slot: try slots.add(file, for: url.lastPathComponent), length: length, filename: url.lastPathComponent)
    }

    private static func checkItemSize(_ size: Int, _ typeIdentifier: String) throws(ErrorInfo) {
        guard size > itemLimit else { return }
        throw AppexErrorDomain.runtimeError(
            9, "the \(typeIdentifier) item is about \(size) bytes, over the \(itemLimit / 1024) KiB an item may carry",
            recovery: "Register a data or file representation for large content; those travel as descriptors.")
    }
}

extension PropertyListValue {
    /// About how many bytes the value takes on the wire, to refuse one that can't fit a frame.
    var estimatedWireSize: Int {
        switch self {
        case .string(let text): text.utf8.count + 2
        case .data(let data): data.count + 2
        case .array(let values): values.reduce(2) { $0 + $1.estimatedWireSize + 2 }
        case .dictionary(let entries): entries.reduce(2) { $0 + $1.key.utf8.count + $1.value.estimatedWireSize + 6 }
        default: 10
        }
    }
}
