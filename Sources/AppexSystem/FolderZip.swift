import Glibc

/// A zip archive of a folder tree, written as a snapshot for an upload: what Apple's file
/// coordinator makes of a folder read `forUploading`.
///
/// The tree is read as ``FolderCopy`` reads it, through descriptors and never through a
/// symbolic link: folders, regular files (each as long as it was when opened) and links
/// (stored as links, with their text, as Info-ZIP stores them). A device, FIFO or socket
/// stops the archive. Every entry lies under `name/`, as a folder compressed in a file
/// manager does, with its Unix mode and modification time. Entries are stored, not
/// compressed, with their CRC-32; an archive is at most 4 GiB and 65,535 entries, as a zip
/// without ZIP64 can be.
///
/// ```swift
/// let output = try FileDescriptor.open("/tmp/Notes.zip", flags: O_WRONLY | O_CREAT | O_EXCL)
/// try FolderZip(limits: .init(files: 65_535, depth: 64, bytes: 4 << 30))
///     .write(ConfinedFolder(trusted: "/home/me/Notes"), as: "Notes", to: output)
/// ```
public struct FolderZip: Sendable {
    /// The most an archive may hold; past any of them it stops with an error.
    public var limits: FolderCopy.Limits

    /// What a zip without ZIP64 can hold.
    public static let zipLimits = FolderCopy.Limits(files: 65_534, depth: 256, bytes: 4 << 30)

    public init(limits: FolderCopy.Limits) {
        self.limits = limits
    }

    /// Writes `source` and everything in it, under `name/`, or at the archive's top when
    /// `name` is nil (as a browser extension's package has its manifest), to `output`, a new
    /// regular file opened for writing. Throws the first failure, with the path it met it
    /// at; the archive is then unfinished, for the caller to remove.
    public func write(_ source: ConfinedFolder, as name: String?, to output: FileDescriptor) throws(SystemError) {
        var archive = Archive(output: output, limits: limits)
        try archive.addFolder(source, path: name.map { $0 + "/" } ?? "", depth: 0)
        try archive.finish()
    }
}

/// The archive being written: where the next entry goes, and the central directory so far.
private struct Archive {
    let output: FileDescriptor
    let limits: FolderCopy.Limits
    var offset: Int64 = 0
    var central: [UInt8] = []
    var entries = 0
    var bytes: Int64 = 0

    /// What a zip without ZIP64 can count to.
    static let largest = Int64(UInt32.max)
    static let mostEntries = Int(UInt16.max)

    init(output: FileDescriptor, limits: FolderCopy.Limits) {
        self.output = output
        self.limits = limits
    }

    mutating func addFolder(_ folder: ConfinedFolder, path: String, depth: Int) throws(SystemError) {
        guard depth <= limits.depth else {
            throw SystemError("zip a tree at most \(limits.depth) folders deep", subject: folder.path, errno: ELOOP)
        }
        if !path.isEmpty { try add(path, status: folder.descriptor.status(), crc: 0, contents: nil) }
        for entry in try folder.entries(limit: limits.files) {
            let path = path + entry.name
            switch entry.kind {
            case .folder:
                let inner = try folder.folder(entry.name)
                defer { inner.close() }
                try addFolder(inner, path: path + "/", depth: depth + 1)
            case .file:
                let file = try folder.openFile(entry.name)
                defer { file.close() }
                try addFile(file, path: path, subject: folder.subject(entry.name))
            case .link:
                var status = stat()
                let raw = folder.descriptor.rawValue
                _ = try retrying("fstatat", subject: folder.subject(entry.name)) { fstatat(raw, entry.name, &status, AT_SYMLINK_NOFOLLOW) }
                let target = Array(try folder.linkTarget(entry.name).utf8)
                var crc = CRC32()
                crc.update(target)
                try add(path, status: status, crc: crc.value, contents: target)
            case .other:
                throw SystemError("zip a folder, file or link", subject: "\(folder.subject(entry.name)), a device, FIFO or socket,", errno: EINVAL)
            }
        }
    }

    /// Adds a regular file: a header, its bytes as long as it was when opened, then its CRC
    /// and length written back into the header.
    mutating func addFile(_ file: FileDescriptor, path: String, subject: String) throws(SystemError) {
        let status = try file.status()
        let length = Int64(status.st_size)
        bytes += length
        guard bytes <= limits.bytes else {
            throw SystemError("zip a tree of at most \(limits.bytes) bytes", subject: subject, errno: EFBIG)
        }
        let header = offset
        try add(path, status: status, crc: 0, contents: nil, length: length)
        var crc = CRC32()
        var copied: Int64 = 0
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { chunk.deallocate() }
        while copied < length {
            let wanted = UnsafeMutableRawBufferPointer(rebasing: chunk[..<Int(min(Int64(chunk.count), length - copied))])
            let got = try file.read(into: wanted, at: Int(copied))
            if got == 0 { break }  // shortened meanwhile
            let read = UnsafeRawBufferPointer(rebasing: wanted[..<got])
            crc.update(read)
            try output.write(read)
            copied += Int64(got)
        }
        offset += copied
        // CRC, compressed and uncompressed lengths: at 14 in the local header, 16 in the central one.
        var fields: [UInt8] = []
        fields.appendLittleEndian(crc.value)
        fields.appendLittleEndian(UInt32(copied))
        fields.appendLittleEndian(UInt32(copied))
        try output.write(fields, at: header + 14)
        central.replaceSubrange((central.count - 46 - path.utf8.count + 16)..<(central.count - 46 - path.utf8.count + 28), with: fields)
    }

    /// Writes the local header of an entry, and its contents if they are given, and records
    /// its central directory entry.
    mutating func add(_ path: String, status: stat, crc: UInt32, contents: [UInt8]?, length: Int64? = nil) throws(SystemError) {
        let name = Array(path.utf8)
        let size = length ?? Int64(contents?.count ?? 0)
        entries += 1
        guard entries <= min(limits.files + 1, Self.mostEntries) else {
            throw SystemError("zip at most \(min(limits.files, Self.mostEntries - 1)) entries", subject: path, errno: EFBIG)
        }
        guard offset + 30 + Int64(name.count) + size <= Self.largest, name.count <= Int(UInt16.max) else {
            throw SystemError("zip at most 4 GiB without ZIP64", subject: path, errno: EFBIG)
        }
        let (time, date) = Self.dosTime(status.st_mtim.tv_sec)
        let isFolder = path.hasSuffix("/")
        // Version 2.0 for folders, 1.0 otherwise; bit 11: the name is UTF-8; method 0: stored.
        var common: [UInt8] = []
        common.appendLittleEndian(UInt16(isFolder ? 20 : 10))
        common.appendLittleEndian(UInt16(1 << 11))
        common.appendLittleEndian(UInt16(0))
        common.appendLittleEndian(time)
        common.appendLittleEndian(date)
        common.appendLittleEndian(crc)
        common.appendLittleEndian(UInt32(size))
        common.appendLittleEndian(UInt32(size))
        common.appendLittleEndian(UInt16(name.count))
        common.appendLittleEndian(UInt16(0))

        var local: [UInt8] = []
        local.appendLittleEndian(UInt32(0x0403_4B50))
        local += common + name + (contents ?? [])
        try output.write(local)

        // Made by Unix (3), zip 2.0; no comment, disk 0, no internal attributes; the mode in
        // the high half of the external ones, MS-DOS's folder bit in the low.
        central.appendLittleEndian(UInt32(0x0201_4B50))
        central.appendLittleEndian(UInt16(3 << 8 | 20))
        central += common
        central.appendLittleEndian(UInt16(0))
        central.appendLittleEndian(UInt16(0))
        central.appendLittleEndian(UInt16(0))
        central.appendLittleEndian(UInt32(status.st_mode) << 16 | (isFolder ? 0x10 : 0))
        central.appendLittleEndian(UInt32(offset))
        central += name
        offset += Int64(local.count)
    }

    /// Writes the central directory and its end record.
    mutating func finish() throws(SystemError) {
        guard offset + Int64(central.count) + 22 <= Self.largest else {
            throw SystemError("zip at most 4 GiB without ZIP64", subject: "the central directory", errno: EFBIG)
        }
        var end: [UInt8] = []
        end.appendLittleEndian(UInt32(0x0605_4B50))
        end.appendLittleEndian(UInt16(0))
        end.appendLittleEndian(UInt16(0))
        end.appendLittleEndian(UInt16(entries))
        end.appendLittleEndian(UInt16(entries))
        end.appendLittleEndian(UInt32(central.count))
        end.appendLittleEndian(UInt32(offset))
        end.appendLittleEndian(UInt16(0))
        try output.write(central + end)
    }

    /// MS-DOS's local time and date of `seconds`, as zip headers hold them; 1980 at the earliest.
    static func dosTime(_ seconds: time_t) -> (time: UInt16, date: UInt16) {
        var when = seconds
        var parts = tm()
        guard localtime_r(&when, &parts) != nil, parts.tm_year >= 80 else { return (0, 1 << 5 | 1) }
        let time = UInt16(parts.tm_hour) << 11 | UInt16(parts.tm_min) << 5 | UInt16(parts.tm_sec / 2)
        let date = UInt16(min(parts.tm_year - 80, 127)) << 9 | UInt16(parts.tm_mon + 1) << 5 | UInt16(parts.tm_mday)
        return (time, date)
    }
}

extension [UInt8] {
    fileprivate mutating func appendLittleEndian(_ value: some FixedWidthInteger) {
        var value = value.littleEndian
        Swift.withUnsafeBytes(of: &value) { append(contentsOf: $0) }
    }
}

extension FileDescriptor {
    /// The open file's `fstat`.
    fileprivate func status() throws(SystemError) -> stat {
        var status = stat()
        let raw = rawValue
        _ = try retrying("fstat") { fstat(raw, &status) }
        return status
    }

    /// Writes all of `bytes` at `offset`, without moving the file position.
    fileprivate func write(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        let raw = rawValue
        var written = 0
        while written < bytes.count {
            let done = written
            written += try retrying("pwrite") { bytes.withUnsafeBytes { pwrite(raw, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) } }
        }
    }
}
