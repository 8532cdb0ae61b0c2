import AppexLocking
import AppexSystem
import Foundation
import Glibc
import Testing

/// A send with descriptors when the user already has more in flight than the sender's
/// open-file limit. Serialized: each test fills the one count of its process's user.
@Suite(.serialized) struct DescriptorsInFlightTests {
    /// The kernel refuses to attach descriptors (ETOOMANYREFS) while the sending user has
    /// more in flight than the sender's open-file limit: a sandboxed extension's send failed
    /// so in CI while other tests' processes had many in flight. A send waits for room;
    /// here, until the socket holding the user's descriptors in flight is closed.
    @Test func aSendWaitsForRoomAmongTheUsersDescriptorsInFlight() async {
        await #expect(processExitsWith: .success) {
            let (sender, receiver, null) = try DescriptorsInFlight.fillTheUsersRoom()
            let drained = Locked(false)
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.2)
                drained.withLock { $0 = true }
                DescriptorsInFlight.holder.withLock { $0 = nil }
            }
            do {
                try Array("x".utf8).withUnsafeBytes { try UnixSocket.send(sender, $0, descriptors: [null]) }
            } catch {
                FileHandle.standardError.write(Data("the send failed: \(error)\n".utf8))
                exit(1)
            }
            guard drained.withLock({ $0 }) else { exit(2) }
            DescriptorsInFlight.restoreTheLimit()
            var buffer = [UInt8](repeating: 0, count: 8)
            var descriptors: [FileDescriptor] = []
            let count = try buffer.withUnsafeMutableBytes { try UnixSocket.receive(receiver, into: $0, descriptors: &descriptors) }
            exit(count == 1 && descriptors.count == 1 ? 0 : 3)
        }
    }

    /// With no room made, the send fails once the wait is over, and says why.
    @Test func aSendWithNoRoomInFlightFailsAndSaysWhy() async {
        await #expect(processExitsWith: .success) {
            let (sender, receiver, null) = try DescriptorsInFlight.fillTheUsersRoom()
            do {
                try withExtendedLifetime(receiver) {
                    try Array("x".utf8).withUnsafeBytes { try UnixSocket.send(sender, $0, descriptors: [null]) }
                }
                exit(1)
            } catch let error as SystemError {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                exit(error.errno == ETOOMANYREFS && error.description.contains("more descriptors in flight") ? 0 : 2)
            } catch {
                exit(3)
            }
        }
    }
}

/// The setting of the tests above, in an exit test's own process: a user of its own
/// (nobody, when run as root), an open-file limit of 16, and 64 descriptors in flight.
enum DescriptorsInFlight {
    /// The socket whose unread queue holds the descriptors in flight; nil closes it.
    static let holder = Locked<FileDescriptor?>(nil)
    private static let saved = Locked(rlimit())

    /// Returns a connected pair to send through and a descriptor to send.
    static func fillTheUsersRoom() throws -> (sender: FileDescriptor, receiver: FileDescriptor, null: FileDescriptor) {
        let (sender, receiver) = try UnixSocket.pair()
        let (filler, held) = try UnixSocket.pair()
        let null = try FileDescriptor.open("/dev/null")
        // Root holds CAP_SYS_ADMIN, and its count is shared with every other test's processes.
        if getuid() == 0 { guard setgid(65_534) == 0, setuid(65_534) == 0 else { exit(4) } }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        saved.withLock { $0 = limit }
        limit.rlim_cur = 16
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { exit(5) }
        // Checked against the limit before they count: 0 ≤ 16, and then 64 are in flight.
        let many = [FileDescriptor](repeating: null, count: UnixSocket.maximumDescriptorsPerSend)
        try Array("fill".utf8).withUnsafeBytes { try UnixSocket.send(filler, $0, descriptors: many) }
        holder.withLock { $0 = held }
        return (sender, receiver, null)
    }

    /// Puts back the open-file limit, so that a descriptor can be received.
    static func restoreTheLimit() {
        var limit = saved.withLock { $0 }
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
