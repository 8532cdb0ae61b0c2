import CAppexSystem
public import Foundation
import Glibc

extension FileDescriptor {
    /// The whole file, mapped read-only: `Data` whose bytes the kernel pages in as they are
    /// read, so mapping a 1 GiB file costs what mapping 1 KiB costs.
    ///
    /// The mapping outlives the descriptor; the `Data` unmaps it when it is released. The
    /// mapping is private, so a writer that changes the file afterwards may or may not be
    /// seen; hand over sealed memory files or files no one writes.
    public func mapContents() throws(SystemError) -> Data {
        let length = try size()
        guard length > 0 else { return Data() }
        guard let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, rawValue, 0), address != MAP_FAILED else {
            throw SystemError("mmap", subject: description)
        }
        return Data(bytesNoCopy: address, count: length, deallocator: .custom { pointer, count in
            munmap(pointer, count)
        })
    }

    /// The most bytes ``untrustedContents()`` reads into memory: 1 GiB.
    public static let untrustedReadLimit = 1 << 30

    /// The whole file, from a process this one doesn't trust: mapped, as ``mapContents()``
    /// does, if no one can shrink it under the mapping (a memory file sealed against
    /// shrinking, as ``MemoryFile/sealed(name:bytes:)`` makes); else read into memory, if it
    /// holds at most ``untrustedReadLimit`` bytes. A mapped file its sender truncates would
    /// end this process with SIGBUS at the first read past the new end; a sparse file of
    /// terabytes, read, would take its memory. Refuses what isn't a regular file, such as a
    /// pipe or a socket.
    public func untrustedContents() throws(SystemError) -> Data {
        guard try isRegularFile() else { throw SystemError("read", subject: "\(description), which is not a regular file", errno: EINVAL) }
        if appex_is_sealed_against_shrinking(rawValue) != 0 { return try mapContents() }
        let length = try size()
        guard length <= Self.untrustedReadLimit else {
            throw SystemError("read", subject: "\(description), \(length) bytes that its sender could still change, over the \(Self.untrustedReadLimit) such a file may have; hand over a sealed memory file, or load it as a file", errno: EFBIG)
        }
        // The size checked is the size read: a sender growing the file meanwhile gets no more.
        return try readContents(length: length)
    }

    /// The whole file, read into memory: as many bytes as it had when the read began, or
    /// fewer if it was shortened meanwhile.
    public func readContents() throws(SystemError) -> Data {
        try readContents(length: size())
    }

    /// The whole file, read into memory, if it holds at most `limit` bytes; a larger one is
    /// refused unread (EFBIG). A writer growing it meanwhile adds nothing to what is read.
    public func readContents(limit: Int) throws(SystemError) -> Data {
        let length = try size()
        guard length <= limit else { throw SystemError("read \(length) bytes, over the \(limit) allowed, from", subject: description, errno: EFBIG) }
        return try readContents(length: length)
    }

    /// The file's first `length` bytes, read into memory, or fewer if it is shorter.
    private func readContents(length: Int) throws(SystemError) -> Data {
        var data = Data(count: length)
        var got = 0
        var failure: SystemError?
        data.withUnsafeMutableBytes { buffer in
            do throws(SystemError) {
                while got < buffer.count {
                    let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[got...]), at: got)
                    if count == 0 { break }
                    got += count
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        data.removeLast(data.count - got)
        return data
    }

    /// Whether the descriptor is a directory, from fstat.
    public func isDirectory() throws(SystemError) -> Bool {
        try fileType() == S_IFDIR
    }

    /// Whether the descriptor is a regular file, from fstat: not a folder, device, pipe or socket.
    public func isRegularFile() throws(SystemError) -> Bool {
        try fileType() == S_IFREG
    }

    /// The permission bits of the descriptor's mode, from fstat.
    public func permissions() throws(SystemError) -> UInt32 {
        var status = stat()
        let raw = rawValue
        _ = try retrying("fstat") { fstat(raw, &status) }
        return UInt32(status.st_mode & 0o7777)
    }

    /// The S_IFMT bits of the descriptor's mode.
    private func fileType() throws(SystemError) -> mode_t {
        var status = stat()
        let raw = rawValue
        _ = try retrying("fstat") { fstat(raw, &status) }
        return status.st_mode & S_IFMT
    }

    /// Copies the whole file, from its start, into a new file at `path`, inside the kernel.
    /// Where the file system can, the copy shares the file's data until either is written
    /// (a reflink), and costs no time or disk; elsewhere only the file's data is copied: its
    /// holes stay holes, so a sparse file of a terabyte that another process hands over
    /// costs the copy no more disk than it cost the sender. The length copied is the length
    /// the file had when the copy began.
    ///
    /// The new file is created with mode 0600 and must not exist.
    public func copyContents(toNewFileAt path: String) throws(SystemError) {
        let output = try FileDescriptor.open(path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        defer { output.close() }
        if appex_clone_file(output.rawValue, rawValue) == 0 { return }
        let length = off_t(try size())
        let input = rawValue
        // SEEK_DATA moves the offset of the open file, which its sender may share: put it back.
        let saved = lseek(input, 0, SEEK_CUR)
        defer { if saved >= 0 { lseek(input, saved, SEEK_SET) } }
        var offset: off_t = 0
        var end = length
        copying: while offset < length {
            // The next run of data, and where it ends; a file system without holes has one run.
            var data = lseek(input, offset, Self.seekData)
            if data < 0 {
                guard errno == ENXIO else { throw SystemError("lseek(SEEK_DATA)", subject: description) }
                break  // only a hole is left
            }
            var hole = lseek(input, data, Self.seekHole)
            if hole < 0 || hole > length { hole = length }
            guard data < hole else { break }
            _ = try retrying("lseek", subject: path) { lseek(output.rawValue, data, SEEK_SET) }
            while data < hole {
                let sent = try retrying("sendfile", subject: path) { sendfile(output.rawValue, input, &data, Int(hole - data)) }
                if sent == 0 {
                    end = data  // the file was shortened meanwhile
                    break copying
                }
            }
            offset = hole
        }
        _ = try retrying("ftruncate", subject: path) { ftruncate(output.rawValue, end) }
    }

    /// `lseek`'s SEEK_DATA and SEEK_HOLE, which Glibc's module hides without _GNU_SOURCE.
    private static let (seekData, seekHole): (Int32, Int32) = (3, 4)

    /// Gives the open file a new name at `path` (a hard link, through `/proc/self/fd`), so it
    /// lives on there whoever removes its other names. Throws `EXDEV` if `path` is on another
    /// file system, `EPERM` if the kernel won't link a file of another owner, `ENOENT` if the
    /// file has no name left: then copy it (``copyContents(toNewFileAt:)``).
    public func link(toNewFileAt path: String) throws(SystemError) {
        let source = "/proc/self/fd/\(rawValue)"
        _ = try retrying("linkat", subject: path) { linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW) }
    }

    /// Whether the descriptor was opened for reading.
    public func isOpenForReading() throws(SystemError) -> Bool {
        let raw = rawValue
        let flags = try retrying("fcntl(F_GETFL)") { fcntl(raw, F_GETFL) }
        let pathOnly: Int32 = 0o10000000  // O_PATH, which Glibc's module doesn't export
        return flags & pathOnly == 0 && flags & O_ACCMODE != O_WRONLY
    }
}
