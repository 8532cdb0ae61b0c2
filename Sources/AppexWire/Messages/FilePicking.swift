public import Foundation

/// `PickFiles` in docs/wire.proto: an extension asks for files the user picks (Powerbox on
/// Apple's systems), on its control channel; appexd, if its entitlements allow it, asks the
/// host of the request the same on the host's control connection, naming the extension.
public struct PickFiles: ProtoMessage, Hashable {
    public var call: UInt64
    /// The request the extension asks for, whose host shows the picker.
    public var requestID: UUID
    /// What the picker tells the user, such as "Choose a photo to attach".
    public var message: String
    /// The uniform types the user may pick; empty for any file.
    public var allowedTypes: [String]
    public var allowsMultiple: Bool
    /// Set by appexd on the way to the host: the extension's bundle identifier and name.
    public var extensionIdentifier: String
    public var extensionName: String

    public init(call: UInt64, requestID: UUID, message: String = "", allowedTypes: [String] = [], allowsMultiple: Bool = false,
                extensionIdentifier: String = "", extensionName: String = "") {
        self.call = call
        self.requestID = requestID
        self.message = message
        self.allowedTypes = allowedTypes
        self.allowsMultiple = allowsMultiple
        self.extensionIdentifier = extensionIdentifier
        self.extensionName = extensionName
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.uuid(2, requestID)
        writer.string(3, message)
        writer.strings(4, allowedTypes)
        writer.bool(5, allowsMultiple)
        writer.string(6, extensionIdentifier)
        writer.string(7, extensionName)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        self.init(call: 0, requestID: .placeholder)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: requestID = try reader.uuid(field)
            case 3: message = try reader.string(field)
            case 4: allowedTypes.append(try reader.string(field))
            case 5: allowsMultiple = try reader.bool(field)
            case 6: extensionIdentifier = try reader.string(field)
            case 7: extensionName = try reader.string(field)
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "PickFiles") }
        self.requestID = requestID
    }
}

/// One file in ``PickedFiles``: its descriptor's slot in the frame, its name, and its type.
public struct PickedFile: ProtoMessage, Hashable {
    public var slot: Int
    public var filename: String
    public var typeIdentifier: String

    public init(slot: Int, filename: String, typeIdentifier: String) {
        self.slot = slot
        self.filename = filename
        self.typeIdentifier = typeIdentifier
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, UInt64(slot))
        writer.string(2, filename)
        writer.string(3, typeIdentifier)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(slot: 0, filename: "", typeIdentifier: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: slot = Int(try reader.uint(field, as: UInt32.self))
            case 2: filename = try reader.string(field)
            case 3: typeIdentifier = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `PickedFiles` in docs/wire.proto: the answer to ``PickFiles``, from the host to appexd and
/// from appexd to the extension. The files travel as descriptors in the frame: read-only
/// ones, whatever the host sent, by the time they reach the extension. No files and an empty
/// `reason` mean the user cancelled; a `reason` says why no picker was shown.
public struct PickedFiles: ProtoMessage, Hashable {
    public var call: UInt64
    public var files: [PickedFile]
    public var reason: String

    public init(call: UInt64, files: [PickedFile] = [], reason: String = "") {
        self.call = call
        self.files = files
        self.reason = reason
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.messages(2, files)
        writer.string(3, reason)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: files.append(try reader.message(field))
            case 3: reason = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}
