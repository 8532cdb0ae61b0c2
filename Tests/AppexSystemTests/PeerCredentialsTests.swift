import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Who is on the other end of a socket, from the kernel's record.
@Suite struct PeerCredentialsTests {
    @Test func aSocketPairsPeerIsThisProcess() throws {
        let (left, right) = try UnixSocket.pair()
        let credentials = try PeerCredentials(of: left)
        #expect(credentials == PeerCredentials.current)
        #expect(credentials.processID == getpid())
        #expect(credentials.userID == geteuid())
        #expect(credentials.groupID == getegid())
        #expect(try PeerCredentials(of: right) == credentials)
        #expect(credentials.description == "pid \(getpid()), uid \(geteuid())")
    }

    @Test func anAcceptedConnectionsPeerIsTheConnectingProcess() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("s.sock").path
        let listener = try UnixSocket.listen(at: path)
        let client = try UnixSocket.connect(to: path)
        let server = try UnixSocket.accept(listener)
        #expect(try PeerCredentials(of: server) == .current)
        #expect(try PeerCredentials(of: client) == .current)
    }

    @Test func thePeersExecutableIsReadFromProc() throws {
        let (left, _) = try UnixSocket.pair()
        let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(try PeerCredentials(of: left).executablePath == own)
        #expect(PeerCredentials(processID: 0, userID: 0, groupID: 0).executablePath == nil)
    }

    @Test func aDescriptorThatIsNotASocketHasNoPeer() throws {
        let file = try FileDescriptor.open("/dev/null")
        let error = #expect(throws: SystemError.self) { try PeerCredentials(of: file) }
        #expect(error?.errno == ENOTSOCK)
    }

    @Test func thePeerProcessIsHeldByAPidfd() throws {
        let (left, _) = try UnixSocket.pair()
        let process = try ProcessDescriptor(peerOf: left)
        #expect(process.processID == getpid())
        #expect(process.descriptor.isOpen)
        #expect(!process.hasExited)
        #expect(process.reap() == nil, "a process can't reap itself")
        // The kernel says which process a pidfd refers to.
        let info = try String(contentsOfFile: "/proc/self/fdinfo/\(process.descriptor.rawValue)", encoding: .utf8)
        #expect(info.split(separator: "\n").contains("Pid:\t\(getpid())"))
        process.send(signal: 0) // checks the process exists; delivers nothing
        #expect(process.description == "pid \(getpid())")
    }

    @Test func aProcessThatDoesNotExistCannotBeOpened() throws {
        let maximum = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
        let pid = try #require(Int32(maximum.trimmingCharacters(in: .whitespacesAndNewlines)))
        let error = #expect(throws: SystemError.self) { try ProcessDescriptor(processID: pid) }
        #expect(error?.errno == ESRCH)
        #expect(error?.subject == "pid \(pid)")
    }
}
