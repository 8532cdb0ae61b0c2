/// `GroupContainer` in docs/wire.proto: asks appexd for an app group's container, on a
/// client connection or an extension's control channel. appexd answers from the asker's
/// entitlements, which it finds from the kernel, not from anything the asker says.
public struct GroupContainer: ProtoMessage, Hashable {
    public var call: UInt64
    public var groupIdentifier: String

    public init(call: UInt64, groupIdentifier: String) {
        self.call = call
        self.groupIdentifier = groupIdentifier
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, groupIdentifier)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, groupIdentifier: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: groupIdentifier = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `GroupContainerResult` in docs/wire.proto: the container's path, made if it was not
/// there, or an empty path and why the asker may not have it.
public struct GroupContainerResult: ProtoMessage, Hashable {
    public var call: UInt64
    public var path: String
    public var reason: String

    public init(call: UInt64, path: String, reason: String = "") {
        self.call = call
        self.path = path
        self.reason = reason
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, path)
        writer.string(3, reason)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, path: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: path = try reader.string(field)
            case 3: reason = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}
