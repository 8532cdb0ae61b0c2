// The calls a process attached to a background session makes on it, and appexd's answers
// (docs/wire.proto, "Background transfers").

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
