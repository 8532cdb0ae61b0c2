import AppexSystem
import Foundation
import Glibc
import Testing

/// Sealed memory files: readable by whoever holds them, changeable by nobody.
@Suite struct MemoryFileTests {
    func sealed(_ bytes: [UInt8], name: String = "appex-test") throws -> FileDescriptor {
        try bytes.withUnsafeBytes { try MemoryFile.sealed(name: name, bytes: $0) }
    }

    @Test func itsContentReadsBack() throws {
        let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let file = try sealed(content)
        #expect(try file.size() == content.count)
        #expect(try file.read(upTo: content.count + 10, at: 0) == content)
        #expect(try file.read(upTo: 3, at: 10) == Array(content[10..<13]))
        #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }

    /// A pipe's bytes go straight into a sealed file, up to a limit past which it is refused.
    @Test func aPipesBytesAreReadToItsEnd() throws {
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for (limit, fits) in [(content.count, true), (content.count - 1, false)] {
            let pipe = try FileDescriptor.pipe()
            let writer = Thread {
                try? pipe.write.write(content)
                pipe.write.close()
            }
            writer.start()
            if fits {
                let file = try MemoryFile.sealed(name: "appex-test", readingToEndOf: pipe.read.rawValue, limit: limit)
                #expect(try file.read(upTo: content.count + 1, at: 0) == content)
                #expect(file.rawValue >= 0 && fcntl(file.rawValue, 1024 + 10) & 8 != 0, "sealed against writes")
            } else {
                let error = #expect(throws: SystemError.self) { try MemoryFile.sealed(name: "appex-test", readingToEndOf: pipe.read.rawValue, limit: limit) }
                #expect(error?.errno == EFBIG)
                // The writer still has bytes to write; drain them so it ends.
                var sink = [UInt8](repeating: 0, count: 1 << 16)
                while read(pipe.read.rawValue, &sink, sink.count) > 0 {}
            }
            pipe.read.close()
            while !writer.isFinished { usleep(1_000) }
        }
    }

    @Test func anEmptyFileIsFine() throws {
        let file = try sealed([])
        #expect(try file.size() == 0)
        #expect(try file.read(upTo: 8, at: 0) == [])
    }

    @Test func everySealIsSet() throws {
        let file = try sealed([1])
        // F_GET_SEALS and the seals, from <linux/fcntl.h>; Glibc hides them without _GNU_SOURCE.
        let seals = fcntl(file.rawValue, 1024 + 10)
        let (seal, shrink, grow, write, exec): (Int32, Int32, Int32, Int32, Int32) = (1, 2, 4, 8, 0x20)
        // Sealed against execution too, where the kernel can (MFD_NOEXEC_SEAL, Linux 6.3).
        let execution = ProcessRestrictions.memoryFilesCanBeSealedAgainstExecution ? exec : 0
        #expect(seals == seal | shrink | grow | write | execution)
    }

    @Test func writesAreRefused() throws {
        let file = try sealed(Array("sealed".utf8))
        let error = #expect(throws: SystemError.self) { try file.write([0]) }
        #expect(error?.errno == EPERM)
        #expect(pwrite(file.rawValue, "x", 1, 0) == -1 && errno == EPERM)
        #expect(ftruncate(file.rawValue, 0) == -1 && errno == EPERM, "nor can it shrink")
        #expect(ftruncate(file.rawValue, 100) == -1 && errno == EPERM, "nor grow")
        #expect(mmap(nil, 6, PROT_READ | PROT_WRITE, MAP_SHARED, file.rawValue, 0) == MAP_FAILED, "nor be mapped writable")
        #expect(try file.read(upTo: 6, at: 0) == Array("sealed".utf8))
    }

    @Test func aCopyReceivedThroughASocketIsSealedToo() throws {
        let file = try sealed(Array("shared".utf8))
        let (left, right) = try UnixSocket.pair()
        try [UInt8(0)].withUnsafeBytes { try UnixSocket.send(left, $0, descriptors: [file]) }
        file.close()
        var byte = [UInt8](repeating: 0, count: 1)
        var received: [FileDescriptor] = []
        _ = try byte.withUnsafeMutableBytes { try UnixSocket.receive(right, into: $0, descriptors: &received) }
        let copy = try #require(received.first)
        #expect(try copy.read(upTo: 100, at: 0) == Array("shared".utf8))
        #expect(throws: SystemError.self) { try copy.write([1]) }
        let mapped = try #require(mmap(nil, 6, PROT_READ, MAP_SHARED, copy.rawValue, 0))
        #expect(mapped != MAP_FAILED, "read-only mapping works")
        #expect(Array(UnsafeRawBufferPointer(start: mapped, count: 6)) == Array("shared".utf8))
        munmap(mapped, 6)
    }
}
