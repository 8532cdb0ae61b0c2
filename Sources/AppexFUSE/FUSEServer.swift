import AppexLocking
import AppexSystem
import CFUSEKernel
import Foundation
import Glibc
import Synchronization

/// Serves a ``FUSEFileSystem`` on a ``FUSEMount``: reads the kernel's requests from
/// /dev/fuse on a thread of its own, runs each as a task, and writes the answers back.
///
/// Requests are answered in any order, so a slow one (a file being fetched) holds up only
/// its caller. None waits past ``deadline``: its caller gets ETIMEDOUT and the late answer
/// is dropped, so a hung file system never hangs the processes that use the mount.
public final class FUSEServer: Sendable {
    /// The longest a request waits for the file system.
    public let deadline: Duration
    /// The largest write the kernel sends in one request, and the largest read it asks for.
    public static let maximumTransfer = 1 << 20

    private let mount: FUSEMount
    private let fileSystem: any FUSEFileSystem
    private let listings = Locked(DirectoryListings())
    private let finished = DispatchSemaphore(value: 0)
    private let workers = FUSEWorkers(threads: 4, name: "appex-fuse-worker")

    public init(mount: FUSEMount, fileSystem: some FUSEFileSystem, deadline: Duration = .seconds(30)) {
        self.mount = mount
        self.fileSystem = fileSystem
        self.deadline = deadline
    }

    /// Starts serving, on a new thread, until the mount is unmounted.
    public func start() {
        let thread = Thread { [self] in
            serve()
            workers.stop()
            finished.signal()
        }
        thread.name = "appex-fuse"
        thread.start()
    }

    /// Unmounts, and returns once the server has stopped reading.
    public func stop() {
        mount.unmount()
        finished.wait()
        finished.signal()
    }

    private func serve() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maximumTransfer + 4096, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(mount.device.rawValue, buffer.baseAddress, buffer.count)
            if count < 0 {
                switch errno {
                case EINTR, EAGAIN, ENOENT: continue // ENOENT: the request was interrupted before it was read
                default: return // ENODEV: unmounted
                }
            }
            handle(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    private func handle(_ message: UnsafeRawBufferPointer) {
        let request: FUSERequest
        do {
            request = try FUSERequest(decoding: message)
        } catch {
            // Answer what can be answered: the header, if it is whole, names the request.
            guard message.count >= MemoryLayout<fuse_in_header>.size else { return }
            let header = message.loadUnaligned(as: fuse_in_header.self)
            if header.opcode != FUSE_FORGET.rawValue, header.opcode != FUSE_BATCH_FORGET.rawValue, header.opcode != FUSE_INTERRUPT.rawValue {
                send(.error(error == .nameNotUTF8 ? EILSEQ : EIO), to: header.unique)
            }
            return
        }
        switch request.operation {
        case let .initialize(major, minor, maxReadahead, flags):
            send(Self.initialization(major: major, minor: minor, maxReadahead: maxReadahead, offered: flags), to: request.unique)
        case let .forget(lookups):
            fileSystem.forget(request.node, lookups: lookups)
        case let .batchForget(forgets):
            for forget in forgets { fileSystem.forget(forget.node, lookups: forget.lookups) }
        case .interrupt:
            break // each request already ends at the deadline
        default:
            answerWithinDeadline(request)
        }
    }

    /// Runs `request` as a task, and answers with its result or, at the deadline, ETIMEDOUT.
    private func answerWithinDeadline(_ request: FUSERequest) {
        let answer = OneAnswer()
        let timer = Task(executorPreference: workers) { [self, deadline] in
            try? await Task.sleep(for: deadline)
            guard !Task.isCancelled, answer.claim() else { return }
            send(.error(ETIMEDOUT), to: request.unique)
        }
        Task(executorPreference: workers) { [self] in
            let reply = await perform(request)
            guard answer.claim() else { return }
            timer.cancel()
            send(reply, to: request.unique)
        }
    }

    private func perform(_ request: FUSERequest) async -> FUSEReply {
        let node = request.node
        do {
            switch request.operation {
            case let .lookup(name):
                return .entry(try await fileSystem.lookup(name, in: node))
            case .attributes:
                return .attributes(try await fileSystem.attributes(of: node), validity: .seconds(1))
            case let .setAttributes(changes):
                return .attributes(try await fileSystem.setAttributes(changes, of: node), validity: .seconds(1))
            case let .open(flags):
                return .open(try await fileSystem.open(node, flags: flags))
            case let .create(name, mode, flags):
                let (entry, file) = try await fileSystem.create(name, in: node, mode: mode, flags: flags, caller: request.caller)
                return .structures(entry.kernel, file.kernel)
            case let .read(handle, offset, count):
                return .bytes(try await fileSystem.read(node, handle: handle, at: offset, count: min(Int(count), Self.maximumTransfer)))
            case let .write(handle, offset, bytes):
                var out = fuse_write_out()
                out.size = UInt32(try await fileSystem.write(bytes, to: node, handle: handle, at: offset))
                return .structures(out)
            case let .flush(handle):
                try await fileSystem.flush(node, handle: handle)
                return .empty
            case let .release(handle):
                await fileSystem.release(node, handle: handle)
                return .empty
            case let .synchronize(handle):
                try await fileSystem.synchronize(node, handle: handle)
                return .empty
            case .openDirectory:
                let entries = try await fileSystem.entries(of: node)
                let handle = listings.withLock { $0.open([FUSEDirectoryEntry(name: ".", node: node, type: UInt32(Glibc.S_IFDIR)),
                                                          FUSEDirectoryEntry(name: "..", node: node, type: UInt32(Glibc.S_IFDIR))] + entries) }
                return .open(FUSEOpenFile(handle: handle))
            case let .readDirectory(handle, offset, count):
                guard let entries = listings.withLock({ $0.entries[handle] }) else { return .error(EBADF) }
                return .directory(entries, from: offset, limit: Int(count))
            case let .releaseDirectory(handle):
                listings.withLock { _ = $0.entries.removeValue(forKey: handle) }
                return .empty
            case let .makeDirectory(name, mode):
                return .entry(try await fileSystem.makeDirectory(name, in: node, mode: mode, caller: request.caller))
            case let .unlink(name):
                try await fileSystem.unlink(name, in: node)
                return .empty
            case let .removeDirectory(name):
                try await fileSystem.removeDirectory(name, in: node)
                return .empty
            case let .rename(name, newParent, newName, flags):
                try await fileSystem.rename(name, in: node, to: newName, in: newParent, options: FUSERenameOptions(rawValue: flags))
                return .empty
            case .statistics:
                return .structures(try await fileSystem.statistics().kernel)
            case .destroy:
                return .empty
            case .unsupported, .initialize, .forget, .batchForget, .interrupt:
                return .error(ENOSYS)
            }
        } catch {
            return .error(error)
        }
    }

    /// Writes one answer. One that fails is dropped: ENOENT means the caller was interrupted
    /// and no longer waits, ENODEV that the mount is gone.
    private func send(_ reply: FUSEReply, to unique: UInt64) {
        var header = fuse_out_header()
        header.unique = unique
        let payload: [UInt8]
        switch reply {
        case let .error(errno): header.error = -errno; payload = []
        case .empty: payload = []
        case let .bytes(bytes): payload = bytes
        }
        header.len = UInt32(MemoryLayout<fuse_out_header>.size + payload.count)
        withUnsafeMutableBytes(of: &header) { head in
            payload.withUnsafeBytes { body in
                var parts = [iovec(iov_base: head.baseAddress, iov_len: head.count),
                             iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)]
                _ = writev(mount.device.rawValue, &parts, body.isEmpty ? 1 : 2)
            }
        }
    }

    /// The answer to the kernel's first request: the protocol version both speak, and what
    /// this server asks of the kernel among what it offered.
    static func initialization(major: UInt32, minor: UInt32, maxReadahead: UInt32, offered: UInt64) -> FUSEReply {
        guard major >= 7 else { return .error(EPROTO) }
        var out = fuse_init_out()
        out.major = UInt32(FUSE_KERNEL_VERSION)
        guard major == 7 else { return .structures(out) } // a newer major: the kernel asks again, with ours
        out.minor = min(minor, UInt32(FUSE_KERNEL_MINOR_VERSION))
        out.max_readahead = maxReadahead
        let wanted = UInt64(FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_AUTO_INVAL_DATA | FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES | FUSE_INIT_EXT)
        let flags = wanted & offered
        out.flags = UInt32(truncatingIfNeeded: flags)
        out.flags2 = UInt32(truncatingIfNeeded: flags >> 32)
        out.max_background = 64
        out.congestion_threshold = 48
        out.max_write = UInt32(maximumTransfer)
        out.time_gran = 1
        out.max_pages = UInt16(maximumTransfer / 4096)
        return .structures(out)
    }
}

/// The one answer a request gets: the file system's, or the deadline's, whichever comes first.
private final class OneAnswer: Sendable {
    private let given = Atomic<Bool>(false)

    /// True for the first caller only.
    func claim() -> Bool {
        given.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}

/// Folders being listed: the entries each `opendir` saw, read page by page by `readdir`.
private struct DirectoryListings {
    var entries: [UInt64: [FUSEDirectoryEntry]] = [:]
    private var next: UInt64 = 1

    mutating func open(_ listing: [FUSEDirectoryEntry]) -> UInt64 {
        defer { next += 1 }
        entries[next] = listing
        return next
    }
}

extension FUSEStatistics {
    var kernel: fuse_statfs_out {
        var out = fuse_statfs_out()
        out.st.blocks = blocks
        out.st.bfree = freeBlocks
        out.st.bavail = freeBlocks
        out.st.files = files
        out.st.ffree = freeFiles
        out.st.bsize = blockSize
        out.st.frsize = blockSize
        out.st.namelen = maximumNameLength
        return out
    }
}
