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
    /// Whether the kernel agreed to passthrough at `INIT`.
    private let passthrough = Atomic<Bool>(false)
    /// The backing file registered for each node with files open through it, and their handles.
    /// The kernel takes one backing file per inode (a second is EBUSY) and looks its id up when
    /// the opener wakes, after the answer is written, so the id stays until the last of those
    /// files is released.
    private let backings = Locked<[UInt64: (id: Int32, handles: Set<UInt64>)]>([:])
    private let finished = DispatchSemaphore(value: 0)
    /// Set by ``stop(grace:)`` when the kernel doesn't end the connection by itself.
    private let stopping = Atomic<Bool>(false)
    /// Whether /dev/fuse is still open. Every use of it holds this lock, so that none writes
    /// to a number the close has freed, which a new file may have taken.
    private let device = Locked(true)
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
    ///
    /// The kernel ends the connection once nothing uses the file system: at once, usually. A
    /// process that still holds a file or a folder of it (one that inherited a descriptor,
    /// one whose working folder it is) keeps it alive; after `grace` the server stops reading
    /// anyway and closes /dev/fuse, which aborts the connection: that process's calls fail
    /// with ENOTCONN, and no mount is left behind.
    public func stop(grace: Duration = .seconds(2)) {
        mount.unmount()
        let (seconds, attoseconds) = grace.components
        if finished.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) == .timedOut {
            stopping.store(true, ordering: .relaxed)
            finished.wait()
        }
        finished.signal()
    }

    private func serve() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maximumTransfer + 4096, alignment: 8)
        defer { buffer.deallocate() }
        defer { closeDevice() }
        while !stopping.load(ordering: .relaxed) {
            // Waits a tenth of a second at most, to see `stopping` in time.
            var ready = pollfd(fd: mount.device.rawValue, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, 100)
            if polled == 0 || polled < 0 && errno == EINTR { continue }
            guard polled > 0, ready.revents & Int16(POLLIN) != 0 else { return } // POLLERR: unmounted
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
            let reply = Self.initialization(major: major, minor: minor, maxReadahead: maxReadahead, offered: flags)
            passthrough.store(Self.grantsPassthrough(reply), ordering: .relaxed)
            send(reply, to: request.unique)
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
            var passedThrough: (node: UInt64, handle: UInt64)?
            let reply = await perform(request, passedThrough: &passedThrough)
            if answer.claim() {
                timer.cancel()
                send(reply, to: request.unique)
            } else if let passedThrough {
                releaseBacking(of: passedThrough.node, handle: passedThrough.handle) // no file was opened with it
            }
        }
    }

    /// What `request` answers. An open whose contents the kernel may read itself holds the
    /// node's backing file, and sets `passedThrough` to the node and the open file's handle.
    private func perform(_ request: FUSERequest, passedThrough: inout (node: UInt64, handle: UInt64)?) async -> FUSEReply {
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
                let file = try await fileSystem.open(node, flags: flags)
                let backing = holdBacking(of: node, for: file)
                if backing != nil { passedThrough = (node, file.handle) }
                return .structures(file.kernel(backing: backing))
            case let .create(name, mode, flags):
                let (entry, file) = try await fileSystem.create(name, in: node, mode: mode, flags: flags, caller: request.caller)
                let backing = holdBacking(of: entry.attributes.node, for: file)
                if backing != nil { passedThrough = (entry.attributes.node, file.handle) }
                return .structures(entry.kernel, file.kernel(backing: backing))
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
                releaseBacking(of: node, handle: handle)
                return .empty
            case let .synchronize(handle):
                try await fileSystem.synchronize(node, handle: handle)
                return .empty
            case .openDirectory:
                let entries = try await fileSystem.entries(of: node)
                let handle = listings.withLock { $0.open([FUSEDirectoryEntry(name: ".", node: node, type: UInt32(Glibc.S_IFDIR)),
                                                          FUSEDirectoryEntry(name: "..", node: node, type: UInt32(Glibc.S_IFDIR))] + entries) }
                return .structures(FUSEOpenFile(handle: handle).kernel())
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

    /// The id of `node`'s backing file, registered with the kernel from `file`'s the first time,
    /// if the connection has passthrough and the kernel takes the file; nil, and reads and
    /// writes come to the file system, otherwise.
    private func holdBacking(of node: UInt64, for file: FUSEOpenFile) -> Int32? {
        guard let backing = file.backing, passthrough.load(ordering: .relaxed) else { return nil }
        return backings.withLock { backings in
            if let held = backings[node] {
                backings[node]?.handles.insert(file.handle)
                return held.id
            }
            var id: Int32 = -1
            withDevice { id = appex_fuse_backing_open($0, backing.rawValue) }
            guard id > 0 else { return nil }
            backings[node] = (id, [file.handle])
            return id
        }
    }

    /// The open file `handle` of `node` is released: the last passed through lets go of the
    /// node's backing file. A file not passed through changes nothing.
    private func releaseBacking(of node: UInt64, handle: UInt64) {
        let closing = backings.withLock { backings -> Int32? in
            guard let held = backings[node], held.handles.contains(handle) else { return nil }
            backings[node]?.handles.remove(handle)
            guard backings[node]?.handles.isEmpty == true else { return nil }
            backings[node] = nil
            return held.id
        }
        if let closing { withDevice { appex_fuse_backing_close($0, UInt32(closing)) } }
    }

    /// Closes /dev/fuse, which ends the connection if the kernel hasn't: every later use of it
    /// is skipped.
    private func closeDevice() {
        device.withLock { open in
            open = false
            mount.device.close()
        }
    }

    /// Runs `body` with /dev/fuse's descriptor, unless it is closed.
    private func withDevice(_ body: (Int32) -> Void) {
        device.withLock { open in if open { body(mount.device.rawValue) } }
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
                withDevice { _ = writev($0, &parts, body.isEmpty ? 1 : 2) }
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
            | APPEX_FUSE_PASSTHROUGH
        let flags = wanted & offered
        out.flags = UInt32(truncatingIfNeeded: flags)
        out.flags2 = UInt32(truncatingIfNeeded: flags >> 32)
        if flags & APPEX_FUSE_PASSTHROUGH != 0 {
            // max_stack_depth, the field after flags2 since 7.40: backing files are on ordinary
            // file systems (depth 0), so the mount stacks one deep.
            out.unused.0 = 1
        }
        out.max_background = 64
        out.congestion_threshold = 48
        out.max_write = UInt32(maximumTransfer)
        out.time_gran = 1
        out.max_pages = UInt16(maximumTransfer / 4096)
        return .structures(out)
    }
}

extension FUSEServer {
    /// Whether an `INIT` answer grants passthrough.
    static func grantsPassthrough(_ reply: FUSEReply) -> Bool {
        guard case let .bytes(bytes) = reply, bytes.count >= MemoryLayout<fuse_init_out>.size else { return false }
        let out = bytes.withUnsafeBytes { $0.loadUnaligned(as: fuse_init_out.self) }
        return (UInt64(out.flags2) << 32) & APPEX_FUSE_PASSTHROUGH != 0
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
