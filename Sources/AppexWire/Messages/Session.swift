public import Foundation

/// A request and its items: `ExtensionRequest` (host to extension) and `CompleteRequest`
/// (extension to host) in docs/wire.proto.
public struct RequestItems: ProtoMessage, Hashable {
    public var requestID: UUID
    public var items: [WireItem]
    /// In a `CompleteRequest`: no completion handler waits in the extension, so the host
    /// sends no `RequestAcknowledged`. Always false in an `ExtensionRequest`.
    public var withoutAcknowledgement: Bool

    public init(requestID: UUID, items: [WireItem], withoutAcknowledgement: Bool = false) {
        self.requestID = requestID
        self.items = items
        self.withoutAcknowledgement = withoutAcknowledgement
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uuid(1, requestID)
        writer.messages(2, items)
        writer.bool(3, withoutAcknowledgement)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        items = []
        withoutAcknowledgement = false
        while let field = try reader.nextField() {
            switch field.number {
            case 1: requestID = try reader.uuid(field)
            case 2: items.append(try reader.message(field))
            case 3: withoutAcknowledgement = try reader.bool(field)
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "a request's items") }
        self.requestID = requestID
    }
}

/// `LoadRequest` in docs/wire.proto: the extension asks the host's provider for one type.
public struct LoadRequest: ProtoMessage, Hashable {
    public var loadID: UInt64
    public var requestID: UUID
    public var providerID: UInt64
    public var typeIdentifier: String
    public var kind: WireRepresentation.Kind

    public init(loadID: UInt64, requestID: UUID, providerID: UInt64, typeIdentifier: String, kind: WireRepresentation.Kind) {
        self.loadID = loadID
        self.requestID = requestID
        self.providerID = providerID
        self.typeIdentifier = typeIdentifier
        self.kind = kind
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, loadID)
        writer.uuid(2, requestID)
        writer.uint(3, providerID)
        writer.string(4, typeIdentifier)
        writer.uint(5, kind.rawValue)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        self.init(loadID: 0, requestID: .placeholder, providerID: 0, typeIdentifier: "", kind: .data)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: loadID = try reader.uint(field)
            case 2: requestID = try reader.uuid(field)
            case 3: providerID = try reader.uint(field)
            case 4: typeIdentifier = try reader.string(field)
            case 5: kind = try WireRepresentation.Kind.read(field, from: &reader)
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "LoadRequest") }
        self.requestID = requestID
    }
}

/// `LoadResult` in docs/wire.proto: the host's answer to a ``LoadRequest``.
public struct LoadResult: ProtoMessage, Hashable {
    public var loadID: UInt64
    /// The registered type that answered, which conforms to the one asked for.
    public var typeIdentifier: String
    public var payload: Payload

    public init(loadID: UInt64, typeIdentifier: String, payload: Payload) {
        self.loadID = loadID
        self.typeIdentifier = typeIdentifier
        self.payload = payload
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, loadID)
        writer.string(2, typeIdentifier)
        writer.message(3, payload)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var payload: Payload?
        self.init(loadID: 0, typeIdentifier: "", payload: .data(Data()))
        while let field = try reader.nextField() {
            switch field.number {
            case 1: loadID = try reader.uint(field)
            case 2: typeIdentifier = try reader.string(field)
            case 3: payload = try reader.message(field)
            default: try reader.skip(field)
            }
        }
        guard let payload else { throw reader.missing("payload", in: "LoadResult") }
        self.payload = payload
    }
}

/// `CancelledRequest` in docs/wire.proto: the extension cancelled with an error.
public struct CancelledRequest: ProtoMessage, Hashable {
    public var requestID: UUID
    public var error: ErrorInfo

    public init(requestID: UUID, error: ErrorInfo) {
        self.requestID = requestID
        self.error = error
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uuid(1, requestID)
        writer.message(2, error)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        self.init(requestID: .placeholder, error: ErrorInfo(domain: "", code: 0, message: ""))
        while let field = try reader.nextField() {
            switch field.number {
            case 1: requestID = try reader.uuid(field)
            case 2: error = try reader.message(field)
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "CancelledRequest") }
        self.requestID = requestID
    }
}
