// What appexd tells the process attached to a background session unasked: its tasks' news
// and events (docs/wire.proto, "Background transfers").
public import Foundation

/// `TransferUpdate` in docs/wire.proto: appexd tells the attached process how a task of its
/// session stands: its progress, or a change of its state.
public struct TransferUpdate: ProtoMessage, Hashable {
    public var sessionIdentifier: String
    public var task: TransferTaskInfo

    public init(sessionIdentifier: String, task: TransferTaskInfo) {
        self.sessionIdentifier = sessionIdentifier
        self.task = task
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, sessionIdentifier)
        writer.message(2, task)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var session = ""
        var task: TransferTaskInfo?
        while let field = try reader.nextField() {
            switch field.number {
            case 1: session = try reader.string(field)
            case 2: task = try reader.message(field)
            default: try reader.skip(field)
            }
        }
        guard let task else { throw reader.missing("task", in: "TransferUpdate") }
        self.init(sessionIdentifier: session, task: task)
    }
}

/// `TransferEvents` in docs/wire.proto: events of the attached session for its delegate, in
/// order. `backlog` marks the ones that waited for the process to attach; after them the
/// delegate hears `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
public struct TransferEvents: ProtoMessage, Hashable {
    public var sessionIdentifier: String
    public var events: [TransferEventInfo]
    public var backlog: Bool

    public init(sessionIdentifier: String, events: [TransferEventInfo], backlog: Bool = false) {
        self.sessionIdentifier = sessionIdentifier
        self.events = events
        self.backlog = backlog
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, sessionIdentifier)
        writer.messages(2, events)
        writer.bool(3, backlog)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(sessionIdentifier: "", events: [])
        while let field = try reader.nextField() {
            switch field.number {
            case 1: sessionIdentifier = try reader.string(field)
            case 2: events.append(try reader.message(field))
            case 3: backlog = try reader.bool(field)
            default: try reader.skip(field)
            }
        }
    }
}

extension TransferEvents {
    /// The most bytes of events one message carries: within a frame's 1 MiB, with room.
    public static let batchBytes = 768 * 1024

    /// `events` in order, as messages of at most `maximumBytes` of events each (one event
    /// alone is far less: its task's header fields and an upload's answer body are bounded);
    /// the last, even if there are none, marked as the backlog if `backlog`.
    public static func batches(of events: [TransferEventInfo], in session: String, backlog: Bool,
                               maximumBytes: Int = batchBytes) -> [TransferEvents] {
        var batches = [TransferEvents(sessionIdentifier: session, events: [])]
        var size = 0
        for event in events {
            let bytes = event.encoded().count
            if size + bytes > maximumBytes, !batches[batches.count - 1].events.isEmpty {
                batches.append(TransferEvents(sessionIdentifier: session, events: []))
                size = 0
            }
            batches[batches.count - 1].events.append(event)
            size += bytes
        }
        batches[batches.count - 1].backlog = backlog
        return batches
    }
}

/// `TransferTaskInfo` in docs/wire.proto: one task as its session's process sees it.
public struct TransferTaskInfo: ProtoMessage, Hashable {
    public var taskIdentifier: UInt64
    /// The task's UUID, which uploads send as `Idempotency-Key`.
    public var id: String
    /// `upload` or `download`.
    public var kind: String
    public var url: String
    public var method: String
    /// `waiting`, `running`, `completed`, `failed` or `cancelled`.
    public var state: String
    public var bytesSent: Int64
    /// -1 while unknown.
    public var bytesExpectedToSend: Int64
    public var bytesReceived: Int64
    /// -1 while unknown.
    public var bytesExpectedToReceive: Int64
    /// The server's answer; 0 until there is one.
    public var statusCode: Int
    /// Why the last attempt failed, or why the task did; empty if neither.
    public var error: String
    /// The `NSURLErrorDomain` code of `error`; 0 if there is none.
    public var errorCode: Int
    /// The bundle that made the task.
    public var owner: String
    /// An ended download whose kept bytes wait for its resume data.
    public var resumable: Bool
    /// Where a download made from resume data went on from once answered: the bytes kept, or
    /// 0 if it started over; -1 until then, and for every other task.
    public var resumedAtOffset: Int64
    /// The header fields of the server's answer, in order, once the task has ended.
    public var responseHeaders: [TransferHeader]

    public init(taskIdentifier: UInt64, id: String, kind: String, url: String, method: String, state: String,
                bytesSent: Int64 = 0, bytesExpectedToSend: Int64 = -1, bytesReceived: Int64 = 0, bytesExpectedToReceive: Int64 = -1,
                statusCode: Int = 0, error: String = "", errorCode: Int = 0, owner: String = "", resumable: Bool = false,
                resumedAtOffset: Int64 = -1, responseHeaders: [TransferHeader] = []) {
        self.taskIdentifier = taskIdentifier
        self.id = id
        self.kind = kind
        self.url = url
        self.method = method
        self.state = state
        self.bytesSent = bytesSent
        self.bytesExpectedToSend = bytesExpectedToSend
        self.bytesReceived = bytesReceived
        self.bytesExpectedToReceive = bytesExpectedToReceive
        self.statusCode = statusCode
        self.error = error
        self.errorCode = errorCode
        self.owner = owner
        self.resumable = resumable
        self.resumedAtOffset = resumedAtOffset
        self.responseHeaders = responseHeaders
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, taskIdentifier)
        writer.string(2, id)
        writer.string(3, kind)
        writer.string(4, url)
        writer.string(5, method)
        writer.string(6, state)
        writer.sint(7, bytesSent)
        writer.sint(8, bytesExpectedToSend)
        writer.sint(9, bytesReceived)
        writer.sint(10, bytesExpectedToReceive)
        writer.uint(11, UInt64(clamping: statusCode))
        writer.string(12, error)
        writer.string(13, owner)
        writer.sint(14, Int64(errorCode))
        writer.bool(15, resumable)
        if resumedAtOffset >= 0 { writer.sint(16, resumedAtOffset, always: true) }
        writer.messages(17, responseHeaders)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        // A field left out is proto3's default, 0, not the initializer's "unknown" (-1).
        self.init(taskIdentifier: 0, id: "", kind: "", url: "", method: "", state: "", bytesExpectedToSend: 0, bytesExpectedToReceive: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: taskIdentifier = try reader.uint(field)
            case 2: id = try reader.string(field)
            case 3: kind = try reader.string(field)
            case 4: url = try reader.string(field)
            case 5: method = try reader.string(field)
            case 6: state = try reader.string(field)
            case 7: bytesSent = try reader.sint(field)
            case 8: bytesExpectedToSend = try reader.sint(field)
            case 9: bytesReceived = try reader.sint(field)
            case 10: bytesExpectedToReceive = try reader.sint(field)
            case 11: statusCode = Int(try reader.uint(field, as: UInt16.self))
            case 12: error = try reader.string(field)
            case 13: owner = try reader.string(field)
            case 14: errorCode = Int(try reader.sint(field))
            case 15: resumable = try reader.bool(field)
            case 16: resumedAtOffset = max(try reader.sint(field), -1)
            case 17: responseHeaders.append(try reader.message(field))
            default: try reader.skip(field)
            }
        }
    }
}

/// `TransferEventInfo` in docs/wire.proto: one event for a session's delegate, kept by
/// appexd until acknowledged.
public struct TransferEventInfo: ProtoMessage, Hashable {
    /// Its place in the order of all events; acknowledging it acknowledges those before.
    public var sequence: UInt64
    /// `finishedDownloading` (`didFinishDownloadingTo`), `receivedData` (`didReceive data`,
    /// an upload's answer body) or `completed` (`didCompleteWithError`).
    public var kind: String
    /// A finished download's file, or the file holding an upload's answer body.
    public var location: String
    /// The task as it ended.
    public var task: TransferTaskInfo
    /// `receivedData`: the kept start of the upload's answer body.
    public var data: Data

    public init(sequence: UInt64, kind: String, location: String = "", task: TransferTaskInfo, data: Data = Data()) {
        self.sequence = sequence
        self.kind = kind
        self.location = location
        self.task = task
        self.data = data
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, sequence)
        writer.string(2, kind)
        writer.string(3, location)
        writer.message(4, task)
        writer.bytes(5, data)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var sequence: UInt64 = 0
        var kind = ""
        var location = ""
        var task: TransferTaskInfo?
        var data = Data()
        while let field = try reader.nextField() {
            switch field.number {
            case 1: sequence = try reader.uint(field)
            case 2: kind = try reader.string(field)
            case 3: location = try reader.string(field)
            case 4: task = try reader.message(field)
            case 5: data = Data(try reader.bytes(field))
            default: try reader.skip(field)
            }
        }
        guard let task else { throw reader.missing("task", in: "TransferEventInfo") }
        self.init(sequence: sequence, kind: kind, location: location, task: task, data: data)
    }
}
