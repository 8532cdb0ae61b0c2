import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// A pipe whose write end is held by nothing but the returned box, so a test can drop it.
final class SoleOwner {
    private var descriptor: FileDescriptor?
    init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }
    /// Hands the descriptor over, keeping no reference.
    func take() -> FileDescriptor {
        defer { descriptor = nil }
        return descriptor!
    }
}

func makePipeWithSoleWriter() throws -> (read: FileDescriptor, write: SoleOwner) {
    let (readEnd, writeEnd) = try makePipe()
    return (readEnd, SoleOwner(writeEnd))
}

/// An owned descriptor is closed exactly once: by close(), by its last reference going, or
/// by whoever took it.
@Suite struct FileDescriptorTests {
    @Test func closeClosesOnceAndLaterCallsDoNothing() throws {
        let (readEnd, writeEnd) = try makePipe()
        #expect(writeEnd.isOpen)
        writeEnd.close()
        #expect(!writeEnd.isOpen)
        #expect(writeEnd.rawValue == -1)
        #expect(writeEnd.description == "fd -1")
        writeEnd.close()
        #expect(everyWriterIsClosed(readEnd))
    }

    @Test func theLastReferenceGoingClosesIt() throws {
        let (readEnd, ownedWriteEnd) = try makePipeWithSoleWriter()
        var owner = Optional(ownedWriteEnd.take())
        #expect(aWriterIsOpen(readEnd))
        owner = nil
        #expect(owner == nil)
        #expect(everyWriterIsClosed(readEnd))
    }

    @Test func takeHandsOverOwnership() throws {
        let (readEnd, writeEnd) = try makePipe()
        let raw = writeEnd.take()
        #expect(!writeEnd.isOpen)
        #expect(writeEnd.rawValue == -1)
        writeEnd.close() // does nothing: the descriptor is no longer its to close
        #expect(isOpen(raw))
        #expect(aWriterIsOpen(readEnd))
        #expect(Glibc.close(raw) == 0)
        #expect(everyWriterIsClosed(readEnd))
    }

    @Test func aTakenDescriptorIsNotClosedWhenTheOwnerGoes() throws {
        let (readEnd, ownedWriteEnd) = try makePipeWithSoleWriter()
        var owner = Optional(ownedWriteEnd.take())
        let raw = owner!.take()
        owner = nil
        #expect(owner == nil)
        #expect(isOpen(raw))
        let adopted = FileDescriptor(owning: raw)
        #expect(aWriterIsOpen(readEnd))
        adopted.close()
        #expect(everyWriterIsClosed(readEnd))
    }

    @Test func takeTrapsOnAClosedDescriptor() async {
        await #expect(processExitsWith: .failure) {
            let descriptor = try FileDescriptor.open("/dev/null")
            descriptor.close()
            _ = descriptor.take()
        }
    }

    @Test func concurrentClosesCloseOnce() throws {
        for _ in 0..<20 {
            let (readEnd, writeEnd) = try makePipe()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in writeEnd.close() }
            #expect(!writeEnd.isOpen)
            #expect(everyWriterIsClosed(readEnd))
        }
    }

    @Test func duplicateIsANewCloseOnExecDescriptorForTheSameFile() throws {
        let (readEnd, writeEnd) = try makePipe()
        let copy = try writeEnd.duplicate()
        #expect(copy.rawValue != writeEnd.rawValue)
        #expect(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        var original = stat()
        var duplicated = stat()
        #expect(fstat(writeEnd.rawValue, &original) == 0)
        #expect(fstat(copy.rawValue, &duplicated) == 0)
        #expect(original.st_ino == duplicated.st_ino)
        writeEnd.close()
        #expect(aWriterIsOpen(readEnd), "the copy keeps the pipe open")
        try copy.write(Array("through the copy".utf8))
        copy.close()
        #expect(try readText(readEnd) == "through the copy")
    }

    @Test func openWriteReadAndSize() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("file").path
        let file = try FileDescriptor.open(path, flags: O_RDWR | O_CREAT | O_EXCL, mode: 0o600)
        #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0, "opened close-on-exec")
        try file.write(Array("hello, world".utf8))
        #expect(try file.size() == 12)
        #expect(try file.read(upTo: 5, at: 7) == Array("world".utf8))
        #expect(try file.read(upTo: 100, at: 0) == Array("hello, world".utf8), "a short read returns what there is")
        #expect(try file.read(upTo: 10, at: 12) == [])
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func openingAMissingFileSaysWhatAndWhere() {
        let error = #expect(throws: SystemError.self) { try FileDescriptor.open("/nonexistent/appex-test") }
        #expect(error?.errno == ENOENT)
        #expect(error?.operation == "open")
        #expect(error?.subject == "/nonexistent/appex-test")
        #expect(error?.errnoName == "ENOENT")
        #expect(error?.description == "open /nonexistent/appex-test: No such file or directory (ENOENT)")
    }

    @Test func anUncommonErrnoStillReads() {
        let error = SystemError("ioctl", errno: EDOM)
        #expect(error.errnoName == nil)
        #expect(error.description.hasPrefix("ioctl: "))
        #expect(error.description.hasSuffix("(errno \(EDOM))"))
    }
}

/// A copy of a file another process hands over costs what the file's data costs, not what its
/// size says: a sparse file of a terabyte, copied into the host's temporary folder or appexd's
/// spool, would otherwise fill the disk with zeros.
@Suite struct SparseCopyTests {
    @Test func holesStayHolesAndTheDataAroundThemIsCopied() throws {
        let folder = try TemporaryDirectory()
        let source = folder.url.appendingPathComponent("sparse")
        let terabyte: off_t = 1 << 40
        let file = try FileDescriptor.open(source.path, flags: O_RDWR | O_CREAT, mode: 0o600)
        try file.write(Array("start".utf8))
        #expect(pwrite(file.rawValue, "middle", 6, terabyte / 2) == 6)
        #expect(ftruncate(file.rawValue, terabyte) == 0)
        _ = lseek(file.rawValue, 3, SEEK_SET)
        let copy = folder.url.appendingPathComponent("copy")
        try file.copyContents(toNewFileAt: copy.path)
        #expect(lseek(file.rawValue, 0, SEEK_CUR) == 3, "the sender's offset is as it was")
        var status = stat()
        #expect(stat(copy.path, &status) == 0)
        #expect(status.st_size == terabyte)
        #expect(status.st_blocks * 512 < 1 << 20, "\(status.st_blocks) blocks")
        let copied = try FileDescriptor.open(copy.path)
        #expect(try copied.read(upTo: 5, at: 0) == Array("start".utf8))
        #expect(try copied.read(upTo: 6, at: Int(terabyte / 2)) == Array("middle".utf8))
        #expect(try copied.read(upTo: 4, at: Int(terabyte / 4)) == [0, 0, 0, 0])
    }
}

