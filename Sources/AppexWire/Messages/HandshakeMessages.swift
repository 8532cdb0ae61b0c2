/// `Hello` in docs/wire.proto: the first frame the connecting side sends.
public struct Hello: ProtoMessage, Hashable {
    /// Who is connecting.
    public enum Role: UInt64, Sendable, Hashable {
        case unspecified = 0, host = 1, cli = 2, `extension` = 3, sessionHost = 4
    }

    /// The protocol's name, always ``Hello/protocolName``.
    public var protocolName: String
    public var minimumVersion: UInt32
    public var maximumVersion: UInt32
    public var role: Role
    /// The program's name, for logs.
    public var name: String

    /// The only valid protocol name.
    public static let protocolName = "appex"

    public init(role: Role, name: String, minimumVersion: UInt32 = WireVersion.minimum, maximumVersion: UInt32 = WireVersion.current) {
        self.protocolName = Self.protocolName
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.role = role
        self.name = name
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, protocolName)
        writer.uint(2, UInt64(minimumVersion))
        writer.uint(3, UInt64(maximumVersion))
        writer.uint(4, role.rawValue)
        writer.string(5, name)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(role: .unspecified, name: "", minimumVersion: 0, maximumVersion: 0)
        protocolName = ""
        while let field = try reader.nextField() {
            switch field.number {
            case 1: protocolName = try reader.string(field)
            case 2: minimumVersion = try reader.uint(field, as: UInt32.self)
            case 3: maximumVersion = try reader.uint(field, as: UInt32.self)
            case 4: role = Role(rawValue: try reader.uint(field)) ?? .unspecified
            case 5: name = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `Welcome` in docs/wire.proto: the version both sides speak from now on.
public struct Welcome: ProtoMessage, Hashable {
    public var version: UInt32
    /// The accepting process's pid.
    public var pid: Int32
    public var name: String

    public init(version: UInt32, pid: Int32, name: String) {
        self.version = version
        self.pid = pid
        self.name = name
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, UInt64(version))
        writer.sint(2, Int64(pid))
        writer.string(3, name)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(version: 0, pid: 0, name: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: version = try reader.uint(field, as: UInt32.self)
            case 2: pid = Int32(truncatingIfNeeded: try reader.sint(field))
            case 3: name = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `Failure` in docs/wire.proto: a refused call, or a refused handshake.
public struct Failure: ProtoMessage, Hashable {
    /// The call it answers, 0 if none.
    public var call: UInt64
    public var error: ErrorInfo

    public init(call: UInt64 = 0, error: ErrorInfo) {
        self.call = call
        self.error = error
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.message(2, error)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(error: ErrorInfo(domain: "", code: 0, message: ""))
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: error = try reader.message(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `Goodbye` in docs/wire.proto: the daemon is shutting down, or ending this extension.
public struct Goodbye: ProtoMessage, Hashable {
    public var reason: String
    /// How long the receiver has before it is ended.
    public var graceMilliseconds: UInt64

    public init(reason: String, graceMilliseconds: UInt64) {
        self.reason = reason
        self.graceMilliseconds = graceMilliseconds
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, reason)
        writer.uint(2, graceMilliseconds)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(reason: "", graceMilliseconds: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: reason = try reader.string(field)
            case 2: graceMilliseconds = try reader.uint(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// The protocol versions this build speaks.
public enum WireVersion {
    /// The lowest version accepted.
    public static let minimum: UInt32 = 1
    /// The version spoken by default.
    public static let current: UInt32 = 8
    /// The first version with requests sent straight on a live session (`RequestBegun`)
    /// and cooperative idle ends (`SessionIdle`).
    public static let directRequests: UInt32 = 2
    /// The first version with app group containers (`GroupContainer`).
    public static let groupContainers: UInt32 = 3
    /// The first version with files the user picks for an extension (`PickFiles`).
    public static let filePicking: UInt32 = 4
    /// The first version with extension points' own messages on a session (`PointMessage`).
    public static let pointMessages: UInt32 = 5
    /// The first version whose hosts confirm the URLs their extensions open (`OpenURL`).
    public static let urlConfirmation: UInt32 = 6
    /// The first version with widgets' content settings (`WidgetHasContent`).
    public static let widgetContent: UInt32 = 7
    /// Background transfers: `TransferAttach` and the rest of docs/transfers.md's messages.
    public static let transfers: UInt32 = 8
}
