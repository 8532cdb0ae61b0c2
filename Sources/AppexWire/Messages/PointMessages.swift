public import Foundation

/// `PointMessage` in docs/wire.proto: one message of an extension point's own conversation
/// between a host and an extension, about one request, in either direction on their session.
///
/// The wire carries a point's messages without reading them: `name` says which of the
/// point's messages it is, and `body` holds it, encoded as the point's module defines (JSON
/// of a Codable value for the system's points). Share's compose sheet and Today's widget
/// content travel this way.
public struct PointMessage: ProtoMessage, Hashable {
    public var requestID: UUID
    /// Counts the sender's messages of the request up from 1, so that an answer can say
    /// which message it answers.
    public var sequence: UInt64
    public var name: String
    public var body: [UInt8]

    public init(requestID: UUID, sequence: UInt64, name: String, body: [UInt8]) {
        self.requestID = requestID
        self.sequence = sequence
        self.name = name
        self.body = body
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uuid(1, requestID)
        writer.uint(2, sequence)
        writer.string(3, name)
        writer.bytes(4, body)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        self.init(requestID: .placeholder, sequence: 0, name: "", body: [])
        while let field = try reader.nextField() {
            switch field.number {
            case 1: requestID = try reader.uuid(field)
            case 2: sequence = try reader.uint(field)
            case 3: name = try reader.string(field)
            case 4: body = Array(try reader.bytes(field))
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "PointMessage") }
        self.requestID = requestID
    }
}
