import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// What a test left behind, counted by what it owns: tests run in parallel in one process,
/// so rather than count every descriptor, these count the kernel objects that belong to
/// this world (sockets whose peer is its daemon, memory files named with its tag, files
/// under its folders) and the processes and temporary files its requests made.
extension FaultWorld {
    /// What the test process holds that belongs to this world.
    struct Holdings: Equatable, CustomStringConvertible {
        /// Sockets whose peer is one of this home's daemons: the daemon connection and the
        /// sessions with extensions, whose socket pairs the daemon made.
        var daemonSockets = 0
        /// Descriptors of files under this world's folders.
        var files = 0
        /// Descriptors and mappings of memory files named with this world's tag.
        var taggedMemory = 0

        var description: String { "\(daemonSockets) daemon sockets, \(files) files, \(taggedMemory) tagged memory files" }
    }

    /// The state before a test's requests, to compare with after.
    struct Baseline {
        var holdings: Holdings
        var hostTemporaryFolders: Set<String>
    }

    /// What the test process holds now.
    func holdings() -> Holdings {
        let daemons = everyDaemon
        var holdings = Holdings()
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in fds.compactMap(Int32.init) {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { continue }
            if target.hasPrefix("socket:"), let peer = Self.peerProcess(of: fd), daemons.contains(peer) {
                holdings.daemonSockets += 1
            } else if target.contains(tag) {
                holdings.taggedMemory += 1
            }
        }
        holdings.files = ResourceCounts.openDescriptors(under: root)
        let maps = KernelFile.text(at: "/proc/self/maps", limit: 16 << 20) ?? ""
        holdings.taggedMemory += maps.split(separator: "\n").filter { $0.contains(tag) }.count
        return holdings
    }

    /// The host-side temporary folders that item loads make, present now.
    static func hostTemporaryFolders() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
        return Set(names.filter { $0.hasPrefix("appex-load-") || $0.hasPrefix("appex-item-") })
    }

    /// The state now, before the test's requests. Take it after the first lookup, so that the
    /// host's connection to the daemon is part of it.
    func baseline() -> Baseline {
        Baseline(holdings: holdings(), hostTemporaryFolders: Self.hostTemporaryFolders())
    }

    /// What is left of the test's requests: processes, descriptors, mappings and temporary files.
    func leftovers(since baseline: Baseline) -> [String] {
        var left: [String] = []
        let processes = extensionProcesses()
        if !processes.isEmpty { left.append("extension processes \(processes)") }
        let now = holdings()
        if now.daemonSockets > baseline.holdings.daemonSockets || now.files > baseline.holdings.files
            || now.taggedMemory > baseline.holdings.taggedMemory {
            left.append("holdings went from \(baseline.holdings) to \(now)")
        }
        for identifier in installedIdentifiers {
            let folder = containerTemporaryDirectory(identifier)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            if !files.isEmpty { left.append("\(folder.path) holds \(files)") }
        }
        let temporary = Self.hostTemporaryFolders().subtracting(baseline.hostTemporaryFolders)
        if !temporary.isEmpty { left.append("host temporary folders \(temporary.sorted())") }
        return left
    }

    /// Waits, boundedly, until the test's requests have left nothing behind, and records an
    /// issue naming whatever is still there. Idle extensions end after the daemon's idle grace.
    func expectNothingLeaked(since baseline: Baseline, sourceLocation: SourceLocation = #_sourceLocation) async {
        var left: [String] = []
        for _ in 0..<750 {
            left = leftovers(since: baseline)
            if left.isEmpty { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("left behind: \(left.joined(separator: "; "))", sourceLocation: sourceLocation)
    }

    /// The pid of the process that made the peer of this process's socket `fd`: for a pair,
    /// the process that made the pair.
    private static func peerProcess(of fd: Int32) -> Int32? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        let socket = FileDescriptor(owning: copy)
        defer { socket.close() }
        return try? PeerCredentials(of: socket).processID
    }
}
