import AppexLocking
import Foundation
import Glibc
import Synchronization

/// Tells watchers when a file in a folder changes (written, or renamed into place), through
/// one inotify descriptor and one thread for the whole process.
final class DirectoryWatcher: Sendable {
    /// The process's watcher, or nil where inotify can't be had (its limits reached, say).
    static let shared: DirectoryWatcher? = DirectoryWatcher()

    private let inotify: Int32
    /// False once the thread has stopped reading (inotify failed): watchers must look for
    /// themselves from then on.
    private let running = Atomic<Bool>(true)

    /// Whether changes are still being reported.
    var isRunning: Bool { running.load(ordering: .acquiring) }
    /// What to call for each file name, by watch descriptor.
    private let watchers = Locked<[Int32: [String: [@Sendable () -> Void]]]>([:])

    /// The name that stands for every file of a folder.
    static let anyName = ""

    private init?() {
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { return nil }
        let thread = Thread { [self] in run() }
        thread.name = "appex-group-watcher"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Calls `changed`, on the watcher's thread, whenever `name` in `folder` is written to or
    /// replaced, or any file of `folder` for the name ``anyName``. Returns false if the
    /// folder can't be watched.
    func watch(_ folder: URL, name: String, _ changed: @escaping @Sendable () -> Void) -> Bool {
        let mask = UInt32(IN_MOVED_TO) | UInt32(IN_MODIFY)
        let watch = inotify_add_watch(inotify, folder.path, mask)
        guard watch >= 0 else { return false }
        watchers.withLock { $0[watch, default: [:]][name, default: []].append(changed) }
        return true
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                running.store(false, ordering: .releasing)
                return
            }
            var offset = 0
            var fired: [@Sendable () -> Void] = []
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = raw[nameStart..<nameStart + Int(event.len)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        // Events were dropped: tell everyone to look.
                        fired += watchers.withLock { $0.values.flatMap { $0.values.joined() } }
                    } else {
                        fired += watchers.withLock { ($0[event.wd]?[name] ?? []) + ($0[event.wd]?[Self.anyName] ?? []) }
                    }
                    offset = nameStart + Int(event.len)
                }
            }
            for changed in fired { changed() }
        }
    }
}
