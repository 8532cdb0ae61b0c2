public import Foundation

/// `BeginRequest` in docs/wire.proto: a host asks the daemon to start a request.
public struct BeginRequest: ProtoMessage, Hashable {
    public var call: UInt64
    public var requestID: UUID
    public var extensionIdentifier: String

    public init(call: UInt64, requestID: UUID, extensionIdentifier: String) {
        self.call = call
        self.requestID = requestID
        self.extensionIdentifier = extensionIdentifier
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.uuid(2, requestID)
        writer.string(3, extensionIdentifier)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        self.init(call: 0, requestID: .placeholder, extensionIdentifier: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: requestID = try reader.uuid(field)
            case 3: extensionIdentifier = try reader.string(field)
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "BeginRequest") }
        self.requestID = requestID
    }
}

/// `RequestStarted` in docs/wire.proto: the request's session, and with a new session the
/// host's end of the socket to the extension in descriptor slot 0.
public struct RequestStarted: ProtoMessage, Hashable {
    public var call: UInt64
    public var requestID: UUID
    public var sessionID: UInt64
    public var pid: Int32
    public var isNewSession: Bool

    public init(call: UInt64, requestID: UUID, sessionID: UInt64, pid: Int32, isNewSession: Bool) {
        self.call = call
        self.requestID = requestID
        self.sessionID = sessionID
        self.pid = pid
        self.isNewSession = isNewSession
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.uuid(2, requestID)
        writer.uint(3, sessionID)
        writer.sint(4, Int64(pid))
        writer.bool(5, isNewSession)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        self.init(call: 0, requestID: .placeholder, sessionID: 0, pid: 0, isNewSession: false)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: requestID = try reader.uuid(field)
            case 3: sessionID = try reader.uint(field)
            case 4: pid = Int32(truncatingIfNeeded: try reader.sint(field))
            case 5: isNewSession = try reader.bool(field)
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "RequestStarted") }
        self.requestID = requestID
    }
}

/// `RequestBegun` in docs/wire.proto: the host sent a request straight on a session it has,
/// without a `BeginRequest`. The daemon needs it for the request's deadline, for the
/// process's idleness, and to name the request if the process ends.
public struct RequestBegun: ProtoMessage, Hashable {
    public var requestID: UUID
    public var sessionID: UInt64

    public init(requestID: UUID, sessionID: UInt64) {
        self.requestID = requestID
        self.sessionID = sessionID
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uuid(1, requestID)
        writer.uint(2, sessionID)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        sessionID = 0
        while let field = try reader.nextField() {
            switch field.number {
            case 1: requestID = try reader.uuid(field)
            case 2: sessionID = try reader.uint(field)
            default: try reader.skip(field)
            }
        }
        guard let requestID else { throw reader.missing("request_id", in: "RequestBegun") }
        self.requestID = requestID
    }
}

/// A message that names one session: `CloseSession` (the host closed its session with an
/// extension process, which has no one left to serve) and `SessionIdle` (the daemon asks
/// the host to close an idle session) in docs/wire.proto.
public struct SessionReference: ProtoMessage, Hashable {
    public var sessionID: UInt64

    public init(_ sessionID: UInt64) { self.sessionID = sessionID }

    public func encode(to writer: inout ProtoWriter) { writer.uint(1, sessionID) }

    public init(from reader: inout ProtoReader) throws(WireError) {
        sessionID = 0
        while let field = try reader.nextField() {
            if field.number == 1 { sessionID = try reader.uint(field) } else { try reader.skip(field) }
        }
    }
}

/// A message that names one request and nothing else: `EndRequest`, `CancelRequest` and
/// `RequestAcknowledged` in docs/wire.proto.
public struct RequestReference: ProtoMessage, Hashable {
    public var requestID: UUID

    public init(_ requestID: UUID) { self.requestID = requestID }

    public func encode(to writer: inout ProtoWriter) { writer.uuid(1, requestID) }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var requestID: UUID?
        while let field = try reader.nextField() {
            if field.number == 1 { requestID = try reader.uuid(field) } else { try reader.skip(field) }
        }
        guard let requestID else { throw reader.missing("request_id", in: "a request message") }
        self.requestID = requestID
    }
}

/// `RequestInterrupted` in docs/wire.proto: requests that ended without an answer, and why.
public struct RequestInterrupted: ProtoMessage, Hashable {
    public var requestIDs: [UUID]
    public var sessionID: UInt64
    public var reason: Interruption

    public init(requestIDs: [UUID], sessionID: UInt64, reason: Interruption) {
        self.requestIDs = requestIDs
        self.sessionID = sessionID
        self.reason = reason
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uuids(1, requestIDs)
        writer.uint(2, sessionID)
        writer.message(3, reason)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(requestIDs: [], sessionID: 0, reason: Interruption(kind: .unspecified))
        while let field = try reader.nextField() {
            switch field.number {
            case 1: requestIDs.append(try reader.uuid(field))
            case 2: sessionID = try reader.uint(field)
            case 3: reason = try reader.message(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `Interruption` in docs/wire.proto: why a request ended without the extension's answer.
public struct Interruption: ProtoMessage, Hashable {
    /// The kinds of interruption, as numbered on the wire.
    public enum Kind: UInt64, Sendable, Hashable {
        case unspecified = 0, crashed, memoryLimit, launchDeadline, requestDeadline, protocolError, daemonGone, launchFailed
    }

    public var kind: Kind
    /// The signal that ended the process, for a crash by signal.
    public var signal: Int32?
    /// The process's exit status, for a crash by exit.
    public var exitStatus: Int32?
    /// The limit broken: bytes for memory, milliseconds for deadlines.
    public var limit: UInt64
    /// What was measured against the limit.
    public var measured: UInt64
    /// One line for people.
    public var message: String

    public init(kind: Kind, signal: Int32? = nil, exitStatus: Int32? = nil, limit: UInt64 = 0, measured: UInt64 = 0, message: String = "") {
        self.kind = kind
        self.signal = signal
        self.exitStatus = exitStatus
        self.limit = limit
        self.measured = measured
        self.message = message
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, kind.rawValue)
        if let signal { writer.sint(2, Int64(signal), always: true) }
        if let exitStatus { writer.sint(3, Int64(exitStatus), always: true) }
        writer.uint(4, limit)
        writer.uint(5, measured)
        writer.string(6, message)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(kind: .unspecified)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: kind = Kind(rawValue: try reader.uint(field)) ?? .unspecified
            case 2: signal = Int32(truncatingIfNeeded: try reader.sint(field))
            case 3: exitStatus = Int32(truncatingIfNeeded: try reader.sint(field))
            case 4: limit = try reader.uint(field)
            case 5: measured = try reader.uint(field)
            case 6: message = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// A message that carries only a call number: `ListProcesses` in docs/wire.proto.
public struct Call: ProtoMessage, Hashable {
    public var call: UInt64

    public init(_ call: UInt64) { self.call = call }

    public func encode(to writer: inout ProtoWriter) { writer.uint(1, call) }

    public init(from reader: inout ProtoReader) throws(WireError) {
        call = 0
        while let field = try reader.nextField() {
            if field.number == 1 { call = try reader.uint(field) } else { try reader.skip(field) }
        }
    }
}
