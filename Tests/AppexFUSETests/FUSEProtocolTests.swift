@testable import AppexFUSE
import CFUSEKernel
import Glibc
import Testing

/// A kernel message: the header, then `body`, with the header's length and opcode filled in.
func message(_ opcode: fuse_opcode, node: UInt64 = 1, unique: UInt64 = 7, body: [UInt8] = [], length: Int? = nil) -> [UInt8] {
    var header = fuse_in_header()
    header.len = UInt32(length ?? MemoryLayout<fuse_in_header>.size + body.count)
    header.opcode = opcode.rawValue
    header.unique = unique
    header.nodeid = node
    header.uid = 1000
    header.pid = 42
    return withUnsafeBytes(of: header) { Array($0) } + body
}

func bytes<T: BitwiseCopyable>(of value: T) -> [UInt8] {
    withUnsafeBytes(of: value) { Array($0) }
}

func decode(_ message: [UInt8]) throws -> FUSERequest {
    try message.withUnsafeBytes { try FUSERequest(decoding: $0) }
}

/// The kernel's messages read, and the answers laid out, as linux/fuse.h defines them.
@Suite struct FUSEProtocolTests {
    @Test func aLookupCarriesItsNameAndCaller() throws {
        let request = try decode(message(FUSE_LOOKUP, node: 5, body: Array("report.pdf".utf8) + [0]))
        #expect(request.unique == 7)
        #expect(request.node == 5)
        #expect(request.caller == FUSECaller(userID: 1000, groupID: 0, processID: 42))
        guard case let .lookup(name) = request.operation else { Issue.record("\(request.operation)"); return }
        #expect(name == "report.pdf")
    }

    @Test func aRenameCarriesBothNames() throws {
        var body = fuse_rename2_in()
        body.newdir = 9
        body.flags = 1
        let request = try decode(message(FUSE_RENAME2, node: 3, body: bytes(of: body) + Array("a\0b\0".utf8)))
        guard case let .rename(name, newParent, newName, flags) = request.operation else { Issue.record("\(request.operation)"); return }
        #expect((name, newParent, newName, flags) == ("a", 9, "b", 1))
    }

    @Test func aWriteCarriesItsBytes() throws {
        var body = fuse_write_in()
        body.fh = 3
        body.offset = 4096
        body.size = 5
        let request = try decode(message(FUSE_WRITE, body: bytes(of: body) + Array("hello".utf8)))
        guard case let .write(handle, offset, written) = request.operation else { Issue.record("\(request.operation)"); return }
        #expect(handle == 3 && offset == 4096 && written == Array("hello".utf8))
    }

    @Test func malformedMessagesAreRefusedNotTrusted() {
        #expect(throws: FUSEProtocolError.truncated(expected: 40, got: 12)) { try decode(Array(message(FUSE_GETATTR).prefix(12))) }
        #expect(throws: FUSEProtocolError.lengthMismatch(header: 100, read: 40)) { try decode(message(FUSE_GETATTR, length: 100)) }
        #expect(throws: FUSEProtocolError.unterminatedName) { try decode(message(FUSE_LOOKUP, body: Array("no-end".utf8))) }
        #expect(throws: FUSEProtocolError.nameNotUTF8) { try decode(message(FUSE_LOOKUP, body: [0x66, 0xFF, 0xFE, 0])) }
        var write = fuse_write_in()
        write.size = 1 << 30 // more than the message holds
        #expect(throws: FUSEProtocolError.self) { try decode(message(FUSE_WRITE, body: bytes(of: write) + [1, 2, 3])) }
        var forgets = fuse_batch_forget_in()
        forgets.count = 1_000_000 // a count the message doesn't back
        #expect(throws: FUSEProtocolError.self) { try decode(message(FUSE_BATCH_FORGET, body: bytes(of: forgets))) }
    }

    @Test func anOperationNotServedIsUnsupported() throws {
        guard case .unsupported(opcode: FUSE_GETXATTR.rawValue) = try decode(message(FUSE_GETXATTR, body: [0, 0, 0, 0, 0, 0, 0, 0])).operation else {
            Issue.record("not unsupported"); return
        }
    }

    @Test func initializationAsksOnlyForWhatTheKernelOffers() throws {
        let offered = UInt64(FUSE_ASYNC_READ | FUSE_MAX_PAGES | FUSE_POSIX_LOCKS)
        guard case let .bytes(reply) = FUSEServer.initialization(major: 7, minor: 41, maxReadahead: 131_072, offered: offered) else {
            Issue.record("no answer"); return
        }
        let out = reply.withUnsafeBytes { $0.loadUnaligned(as: fuse_init_out.self) }
        #expect(out.major == 7 && out.minor == UInt32(FUSE_KERNEL_MINOR_VERSION))
        #expect(UInt64(out.flags) == UInt64(FUSE_ASYNC_READ | FUSE_MAX_PAGES))
        #expect(out.max_write == 1 << 20 && out.max_pages == 256 && out.max_readahead == 131_072)
        guard case let .bytes(older) = FUSEServer.initialization(major: 7, minor: 31, maxReadahead: 0, offered: 0) else { return }
        #expect(older.withUnsafeBytes { $0.loadUnaligned(as: fuse_init_out.self) }.minor == 31)
        guard case .error(EPROTO) = FUSEServer.initialization(major: 6, minor: 0, maxReadahead: 0, offered: 0) else {
            Issue.record("an older major is not refused"); return
        }
    }

    @Test func folderEntriesArePackedAlignedAndResumable() throws {
        let entries = (0..<5).map { FUSEDirectoryEntry(name: String(repeating: "n", count: $0 + 1), node: UInt64(10 + $0), type: UInt32(Glibc.S_IFREG)) }
        #expect(MemoryLayout<fuse_dirent>.size == 24)
        // The first three need 24 + 8 each: a limit of 100 holds three, not four.
        guard case let .bytes(page) = FUSEReply.directory(entries, from: 0, limit: 100) else { Issue.record("no page"); return }
        #expect(page.count == 96)
        let third = page.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 64, as: fuse_dirent.self) }
        #expect(third.ino == 12 && third.off == 3 && third.namelen == 3 && third.type == UInt32(Glibc.S_IFREG) >> 12)
        guard case let .bytes(rest) = FUSEReply.directory(entries, from: third.off, limit: 4096) else { Issue.record("no page"); return }
        let fourth = rest.withUnsafeBytes { $0.loadUnaligned(as: fuse_dirent.self) }
        #expect(fourth.ino == 13 && fourth.off == 4 && rest.count == 64)
        guard case let .bytes(end) = FUSEReply.directory(entries, from: 5, limit: 4096) else { Issue.record("no page"); return }
        #expect(end.isEmpty)
    }
}
