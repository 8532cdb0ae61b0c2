import CFUSEKernel

/// One request the kernel sent for the mount: who asked, about which node, to do what.
public struct FUSERequest: Sendable {
    /// The kernel's number for the request, which its answer must carry.
    public let unique: UInt64
    /// The node the request is about (the parent, for a request that names a child).
    public let node: UInt64
    /// The process that made the system call, as the kernel saw it.
    public let caller: FUSECaller
    /// What it asks.
    public let operation: FUSEOperation

    /// Decodes one message as read from /dev/fuse.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(FUSEProtocolError) {
        var reader = FUSEMessageReader(bytes)
        let header = try reader.take(fuse_in_header.self)
        guard Int(header.len) == bytes.count else { throw .lengthMismatch(header: Int(header.len), read: bytes.count) }
        unique = header.unique
        node = header.nodeid
        caller = FUSECaller(userID: header.uid, groupID: header.gid, processID: header.pid)
        operation = try FUSEOperation(opcode: header.opcode, reading: &reader)
    }
}

/// The process behind a request.
public struct FUSECaller: Sendable, Equatable {
    public let userID: UInt32
    public let groupID: UInt32
    public let processID: UInt32
}

/// What a request asks, with its arguments: the operations Appex's mounts serve. Any other
/// is ``unsupported(opcode:)``, answered with ENOSYS, which tells the kernel not to ask again.
public enum FUSEOperation: Sendable {
    case initialize(major: UInt32, minor: UInt32, maxReadahead: UInt32, flags: UInt64)
    case destroy
    case lookup(name: String)
    case forget(lookups: UInt64)
    case batchForget([FUSEForget])
    case attributes
    case setAttributes(FUSEAttributeChanges)
    case open(flags: Int32)
    case create(name: String, mode: UInt32, flags: Int32)
    case read(handle: UInt64, offset: UInt64, count: UInt32)
    case write(handle: UInt64, offset: UInt64, bytes: [UInt8])
    case flush(handle: UInt64)
    case release(handle: UInt64)
    case synchronize(handle: UInt64)
    case openDirectory
    case readDirectory(handle: UInt64, offset: UInt64, count: UInt32)
    case releaseDirectory(handle: UInt64)
    case makeDirectory(name: String, mode: UInt32)
    case unlink(name: String)
    case removeDirectory(name: String)
    case rename(name: String, newParent: UInt64, newName: String, flags: UInt32)
    case statistics
    case interrupt(unique: UInt64)
    case unsupported(opcode: UInt32)

    init(opcode: UInt32, reading reader: inout FUSEMessageReader) throws(FUSEProtocolError) {
        switch fuse_opcode(rawValue: opcode) {
        case FUSE_INIT:
            let body = try reader.take(fuse_init_in.self)
            // flags2 came with FUSE_INIT_EXT; an older kernel sends no more than the first four fields.
            let high = body.flags & UInt32(FUSE_INIT_EXT) != 0 ? UInt64(body.flags2) << 32 : 0
            self = .initialize(major: body.major, minor: body.minor, maxReadahead: body.max_readahead, flags: high | UInt64(body.flags))
        case FUSE_DESTROY: self = .destroy
        case FUSE_LOOKUP: self = .lookup(name: try reader.takeName())
        case FUSE_FORGET: self = .forget(lookups: try reader.take(fuse_forget_in.self).nlookup)
        case FUSE_BATCH_FORGET:
            let count = try reader.take(fuse_batch_forget_in.self).count
            var forgets: [FUSEForget] = []
            for _ in 0..<count {
                let one = try reader.take(fuse_forget_one.self)
                forgets.append(FUSEForget(node: one.nodeid, lookups: one.nlookup))
            }
            self = .batchForget(forgets)
        case FUSE_GETATTR: self = .attributes
        case FUSE_SETATTR: self = .setAttributes(FUSEAttributeChanges(try reader.take(fuse_setattr_in.self)))
        case FUSE_OPEN: self = .open(flags: Int32(bitPattern: try reader.take(fuse_open_in.self).flags))
        case FUSE_CREATE:
            let body = try reader.take(fuse_create_in.self)
            self = .create(name: try reader.takeName(), mode: body.mode & ~body.umask, flags: Int32(bitPattern: body.flags))
        case FUSE_READ:
            let body = try reader.take(fuse_read_in.self)
            self = .read(handle: body.fh, offset: body.offset, count: body.size)
        case FUSE_WRITE:
            let body = try reader.take(fuse_write_in.self)
            self = .write(handle: body.fh, offset: body.offset, bytes: try reader.takeBytes(Int(body.size)))
        case FUSE_FLUSH: self = .flush(handle: try reader.take(fuse_flush_in.self).fh)
        case FUSE_RELEASE: self = .release(handle: try reader.take(fuse_release_in.self).fh)
        case FUSE_FSYNC: self = .synchronize(handle: try reader.take(fuse_fsync_in.self).fh)
        case FUSE_OPENDIR: self = .openDirectory
        case FUSE_READDIR:
            let body = try reader.take(fuse_read_in.self)
            self = .readDirectory(handle: body.fh, offset: body.offset, count: body.size)
        case FUSE_RELEASEDIR: self = .releaseDirectory(handle: try reader.take(fuse_release_in.self).fh)
        case FUSE_MKDIR:
            let body = try reader.take(fuse_mkdir_in.self)
            self = .makeDirectory(name: try reader.takeName(), mode: body.mode & ~body.umask)
        case FUSE_UNLINK: self = .unlink(name: try reader.takeName())
        case FUSE_RMDIR: self = .removeDirectory(name: try reader.takeName())
        case FUSE_RENAME:
            let body = try reader.take(fuse_rename_in.self)
            self = .rename(name: try reader.takeName(), newParent: body.newdir, newName: try reader.takeName(), flags: 0)
        case FUSE_RENAME2:
            let body = try reader.take(fuse_rename2_in.self)
            self = .rename(name: try reader.takeName(), newParent: body.newdir, newName: try reader.takeName(), flags: body.flags)
        case FUSE_STATFS: self = .statistics
        case FUSE_INTERRUPT: self = .interrupt(unique: try reader.take(fuse_interrupt_in.self).unique)
        default: self = .unsupported(opcode: opcode)
        }
    }

    /// Whether the kernel waits for an answer to it.
    var expectsReply: Bool {
        switch self {
        case .forget, .batchForget, .interrupt: false
        default: true
        }
    }
}

/// One node the kernel forgets, and how many of its lookups.
public struct FUSEForget: Sendable, Equatable {
    public let node: UInt64
    public let lookups: UInt64
}
