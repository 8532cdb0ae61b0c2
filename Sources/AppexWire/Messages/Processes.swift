/// `ProcessList` in docs/wire.proto: the live extension processes, for `appex ps`.
public struct ProcessList: ProtoMessage, Hashable {
    public var call: UInt64
    public var processes: [ExtensionProcess]

    public init(call: UInt64, processes: [ExtensionProcess]) {
        self.call = call
        self.processes = processes
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.messages(2, processes)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, processes: [])
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: processes.append(try reader.message(field))
            default: try reader.skip(field)
            }
        }
    }
}

/// `ProcessInfo` in docs/wire.proto: one live extension process.
public struct ExtensionProcess: ProtoMessage, Hashable {
    public var pid: Int32
    public var extensionIdentifier: String
    public var hostPID: Int32
    public var hostName: String
    public var residentBytes: UInt64
    public var ageMilliseconds: UInt64
    /// `launching`, `running`, `idle` or `ending`.
    public var state: String
    public var activeRequests: Int
    public var memoryLimit: UInt64

    public init(pid: Int32, extensionIdentifier: String, hostPID: Int32, hostName: String, residentBytes: UInt64,
                ageMilliseconds: UInt64, state: String, activeRequests: Int, memoryLimit: UInt64) {
        self.pid = pid
        self.extensionIdentifier = extensionIdentifier
        self.hostPID = hostPID
        self.hostName = hostName
        self.residentBytes = residentBytes
        self.ageMilliseconds = ageMilliseconds
        self.state = state
        self.activeRequests = activeRequests
        self.memoryLimit = memoryLimit
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.sint(1, Int64(pid))
        writer.string(2, extensionIdentifier)
        writer.sint(3, Int64(hostPID))
        writer.string(4, hostName)
        writer.uint(5, residentBytes)
        writer.uint(6, ageMilliseconds)
        writer.string(7, state)
        writer.uint(8, UInt64(clamping: activeRequests)) // uint64: negative clamps to 0, never traps
        writer.uint(9, memoryLimit)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(pid: 0, extensionIdentifier: "", hostPID: 0, hostName: "", residentBytes: 0, ageMilliseconds: 0, state: "", activeRequests: 0, memoryLimit: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: pid = Int32(truncatingIfNeeded: try reader.sint(field))
            case 2: extensionIdentifier = try reader.string(field)
            case 3: hostPID = Int32(truncatingIfNeeded: try reader.sint(field))
            case 4: hostName = try reader.string(field)
            case 5: residentBytes = try reader.uint(field)
            case 6: ageMilliseconds = try reader.uint(field)
            case 7: state = try reader.string(field)
            case 8: activeRequests = Int(try reader.uint(field, as: UInt32.self))
            case 9: memoryLimit = try reader.uint(field)
            default: try reader.skip(field)
            }
        }
    }
}
