public import Foundation

/// `TransferAttach` in docs/wire.proto: attaches the sender to one background session of its
/// containing app (`URLSession(configuration: .background(withIdentifier:))`), naming the
/// app group whose container its downloads land in. appexd answers `TransferSession`, or a
/// `Failure` if another process is attached or the sender may not use the group.
public struct TransferAttach: ProtoMessage, Hashable {
    public var call: UInt64
    public var sessionIdentifier: String
    public var groupIdentifier: String

    public init(call: UInt64, sessionIdentifier: String, groupIdentifier: String) {
        self.call = call
        self.sessionIdentifier = sessionIdentifier
        self.groupIdentifier = groupIdentifier
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, sessionIdentifier)
        writer.string(3, groupIdentifier)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, sessionIdentifier: "", groupIdentifier: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: sessionIdentifier = try reader.string(field)
            case 3: groupIdentifier = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `TransferSession` in docs/wire.proto: the answer to `TransferAttach`: the session's
/// tasks. Its undelivered events follow as `TransferEvents` marked as the backlog.
public struct TransferSession: ProtoMessage, Hashable {
    public var call: UInt64
    public var tasks: [TransferTaskInfo]

    public init(call: UInt64, tasks: [TransferTaskInfo]) {
        self.call = call
        self.tasks = tasks
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.messages(2, tasks)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, tasks: [])
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: tasks.append(try reader.message(field))
            default: try reader.skip(field)
            }
        }
    }
}

/// `TransferCreate` in docs/wire.proto: a new task in the attached session. An upload
/// carries its file as the frame's one descriptor, which appexd keeps for the task's life;
/// a download carries none, and lands in the session's group container.
public struct TransferCreate: ProtoMessage, Hashable {
    public var call: UInt64
    public var sessionIdentifier: String
    /// `upload` or `download`.
    public var kind: String
    public var url: String
    public var method: String
    public var headers: [TransferHeader]
    /// `timeoutIntervalForRequest`, in milliseconds; 0 for the default.
    public var timeoutMilliseconds: UInt64
    /// `timeoutIntervalForResource`, in milliseconds; 0 for the default.
    public var resourceTimeoutMilliseconds: UInt64
    /// `sessionSendsLaunchEvents` set to false: the task's events never launch the app.
    public var sendsNoLaunchEvents: Bool
    /// A download made from resume data: the id of the ended download whose kept bytes it
    /// takes over, with its request (`url`, `method` and `headers` are then not used); empty
    /// for any other task.
    public var resumesTask: String
    /// `earliestBeginDate`, in milliseconds since 1970: the task waits until then; 0 for none.
    public var earliestBeginMilliseconds: UInt64

    public init(call: UInt64, sessionIdentifier: String, kind: String, url: String, method: String, headers: [TransferHeader] = [],
                timeoutMilliseconds: UInt64 = 0, resourceTimeoutMilliseconds: UInt64 = 0, sendsNoLaunchEvents: Bool = false,
                resumesTask: String = "", earliestBeginMilliseconds: UInt64 = 0) {
        self.call = call
        self.sessionIdentifier = sessionIdentifier
        self.kind = kind
        self.url = url
        self.method = method
        self.headers = headers
        self.timeoutMilliseconds = timeoutMilliseconds
        self.resourceTimeoutMilliseconds = resourceTimeoutMilliseconds
        self.sendsNoLaunchEvents = sendsNoLaunchEvents
        self.resumesTask = resumesTask
        self.earliestBeginMilliseconds = earliestBeginMilliseconds
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, sessionIdentifier)
        writer.string(3, kind)
        writer.string(4, url)
        writer.string(5, method)
        writer.messages(6, headers)
        writer.uint(7, timeoutMilliseconds)
        writer.uint(8, resourceTimeoutMilliseconds)
        writer.bool(9, sendsNoLaunchEvents)
        writer.string(10, resumesTask)
        writer.uint(11, earliestBeginMilliseconds)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, sessionIdentifier: "", kind: "", url: "", method: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: sessionIdentifier = try reader.string(field)
            case 3: kind = try reader.string(field)
            case 4: url = try reader.string(field)
            case 5: method = try reader.string(field)
            case 6: headers.append(try reader.message(field))
            case 7: timeoutMilliseconds = try reader.uint(field)
            case 8: resourceTimeoutMilliseconds = try reader.uint(field)
            case 9: sendsNoLaunchEvents = try reader.bool(field)
            case 10: resumesTask = try reader.string(field)
            case 11: earliestBeginMilliseconds = try reader.uint(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `TransferHeader` in docs/wire.proto: one header field of a task's request.
public struct TransferHeader: ProtoMessage, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, name)
        writer.string(2, value)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(name: "", value: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: name = try reader.string(field)
            case 2: value = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `TransferTaskResult` in docs/wire.proto: the task a `TransferCreate` made or a
/// `TransferCancel` ended, as it now stands.
public struct TransferTaskResult: ProtoMessage, Hashable {
    public var call: UInt64
    public var task: TransferTaskInfo

    public init(call: UInt64, task: TransferTaskInfo) {
        self.call = call
        self.task = task
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.message(2, task)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var call: UInt64 = 0
        var task: TransferTaskInfo?
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: task = try reader.message(field)
            default: try reader.skip(field)
            }
        }
        guard let task else { throw reader.missing("task", in: "TransferTaskResult") }
        self.init(call: call, task: task)
    }
}

/// `TransferCancel` in docs/wire.proto: cancels a task of the attached session
/// (`URLSessionTask.cancel()`); appexd answers `TransferTaskResult`.
public struct TransferCancel: ProtoMessage, Hashable {
    public var call: UInt64
    public var sessionIdentifier: String
    public var taskIdentifier: UInt64
    /// `cancel(byProducingResumeData:)`: a download that may resume keeps its bytes for its
    /// resume data, and the answer says so.
    public var producesResumeData: Bool

    public init(call: UInt64, sessionIdentifier: String, taskIdentifier: UInt64, producesResumeData: Bool = false) {
        self.call = call
        self.sessionIdentifier = sessionIdentifier
        self.taskIdentifier = taskIdentifier
        self.producesResumeData = producesResumeData
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, sessionIdentifier)
        writer.uint(3, taskIdentifier)
        writer.bool(4, producesResumeData)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, sessionIdentifier: "", taskIdentifier: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: sessionIdentifier = try reader.string(field)
            case 3: taskIdentifier = try reader.uint(field)
            case 4: producesResumeData = try reader.bool(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `TransferAcknowledge` in docs/wire.proto: the attached session's events up to
/// `sequence` were delivered; appexd forgets them, and removes a finished download's file
/// if the delegate left it where it was handed over.
public struct TransferAcknowledge: ProtoMessage, Hashable {
    public var sessionIdentifier: String
    public var sequence: UInt64

    public init(sessionIdentifier: String, sequence: UInt64) {
        self.sessionIdentifier = sessionIdentifier
        self.sequence = sequence
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, sessionIdentifier)
        writer.uint(2, sequence)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(sessionIdentifier: "", sequence: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: sessionIdentifier = try reader.string(field)
            case 2: sequence = try reader.uint(field)
            default: try reader.skip(field)
            }
        }
    }
}

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
        writer.sint(8, bytesExpectedToSend, always: true)
        writer.sint(9, bytesReceived)
        writer.sint(10, bytesExpectedToReceive, always: true)
        writer.uint(11, UInt64(clamping: statusCode))
        writer.string(12, error)
        writer.string(13, owner)
        writer.sint(14, Int64(errorCode))
        writer.bool(15, resumable)
        if resumedAtOffset >= 0 { writer.sint(16, resumedAtOffset, always: true) }
        writer.messages(17, responseHeaders)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(taskIdentifier: 0, id: "", kind: "", url: "", method: "", state: "")
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
