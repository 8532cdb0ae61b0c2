import Glibc

/// A 64-bit little-endian ELF file, read through a descriptor with every offset, size and
/// count checked against the file: what the launcher needs of an executable (its program
/// headers, dynamic section and symbol table), from a file whose author may be hostile. It
/// never reads more than the file holds, nor keeps more than one table in memory.
public struct ELFFile: Sendable {
    /// What is wrong with a file that is not a well-formed ELF file for this machine.
    public struct Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// `ET_DYN`, `ET_EXEC` and the rest: e_type.
    public let type: UInt16
    /// Where each of the file's program headers' segments lies.
    public let segments: [Segment]
    /// The sections' headers, in order.
    public let sections: [Section]
    private let descriptor: FileDescriptor
    private let size: Int

    /// A program header's fields the launcher uses.
    public struct Segment: Sendable, Hashable {
        public var type: UInt32
        public var offset: UInt64
        public var address: UInt64
        public var fileSize: UInt64
    }

    /// A section header's fields the launcher uses.
    public struct Section: Sendable, Hashable {
        public var type: UInt32
        public var offset: UInt64
        public var size: UInt64
        public var link: UInt32
        public var entrySize: UInt64
    }

    /// One entry of the dynamic section, and where in the file it lies.
    public struct DynamicEntry: Sendable, Hashable {
        public var tag: Int64
        public var value: UInt64
        public var fileOffset: Int
    }

    public static let typeExecutable: UInt16 = 2
    public static let typeShared: UInt16 = 3
    public static let segmentLoad: UInt32 = 1
    public static let segmentDynamic: UInt32 = 2
    public static let segmentInterpreter: UInt32 = 3
    public static let sectionSymbolTable: UInt32 = 2
    public static let tagNeeded: Int64 = 1
    public static let tagStringTable: Int64 = 5
    public static let tagRunPath: Int64 = 29
    public static let tagFlags1: Int64 = 0x6fff_fffb
    /// DF_1_PIE in DT_FLAGS_1: what glibc's dlopen refuses.
    public static let flagPIE: UInt64 = 0x0800_0000

    /// This machine's e_machine.
    static let machine: UInt16 = {
        #if arch(x86_64)
        62
        #elseif arch(arm64)
        183
        #else
        0
        #endif
    }()

    /// Reads the headers of the file open at `descriptor`, which stays the caller's.
    public init(reading descriptor: FileDescriptor) throws(ELFFile.Malformed) {
        self.descriptor = descriptor
        guard let size = try? descriptor.size() else { throw Malformed(reason: "it can't be read") }
        self.size = size
        let magic = try Self.read(descriptor, size: size, min(4, size), at: 0, what: "the ELF header")
        guard magic == [0x7f, 0x45, 0x4c, 0x46] else { throw Malformed(reason: "it is not an ELF file") }
        let header = try Self.read(descriptor, size: size, 64, at: 0, what: "the ELF header")
        guard header[4] == 2, header[5] == 1 else { throw Malformed(reason: "it is not a 64-bit little-endian ELF file") }
        guard header.u16(18) == Self.machine else { throw Malformed(reason: "it is built for another machine (e_machine \(header.u16(18)))") }
        type = header.u16(16)
        let programOffset = header.u64(32), sectionOffset = header.u64(40)
        let programEntry = Int(header.u16(54)), programCount = Int(header.u16(56))
        let sectionEntry = Int(header.u16(58)), sectionCount = Int(header.u16(60))
        // glibc's loader takes only these sizes, which also bound what the tables may hold.
        guard programCount == 0 || programEntry == 56, sectionCount == 0 || sectionEntry == 64 else {
            throw Malformed(reason: "its header tables' entries are not ELF64's (56 and 64 bytes)")
        }
        let programTable = try Self.read(descriptor, size: size, programEntry * programCount, at: programOffset, what: "the program headers")
        segments = (0..<programCount).map { index in
            let base = index * programEntry
            return Segment(type: programTable.u32(base), offset: programTable.u64(base + 8), address: programTable.u64(base + 16),
                           fileSize: programTable.u64(base + 32))
        }
        let sectionTable = try Self.read(descriptor, size: size, sectionEntry * sectionCount, at: sectionOffset, what: "the section headers")
        sections = (0..<sectionCount).map { index in
            let base = index * sectionEntry
            return Section(type: sectionTable.u32(base + 4), offset: sectionTable.u64(base + 24), size: sectionTable.u64(base + 32),
                           link: sectionTable.u32(base + 40), entrySize: sectionTable.u64(base + 56))
        }
    }

    /// Whether the file names a program interpreter (PT_INTERP): a dynamically linked program.
    public var hasInterpreter: Bool { segments.contains { $0.type == Self.segmentInterpreter } }

    /// The dynamic section's entries, up to DT_NULL; empty for a file without one.
    public func dynamicEntries() throws(ELFFile.Malformed) -> [DynamicEntry] {
        guard let dynamic = segments.first(where: { $0.type == Self.segmentDynamic }) else { return [] }
        let bytes = try Self.read(descriptor, size: size, Int(clamping: dynamic.fileSize), at: dynamic.offset, what: "the dynamic section")
        var entries: [DynamicEntry] = []
        for base in stride(from: 0, to: bytes.count - 15, by: 16) {
            let tag = Int64(bitPattern: bytes.u64(base))
            if tag == 0 { break }
            entries.append(DynamicEntry(tag: tag, value: bytes.u64(base + 8), fileOffset: Int(dynamic.offset) + base))
        }
        return entries
    }

    /// The strings the dynamic section's entries tagged `tag` name (DT_NEEDED's libraries,
    /// DT_RUNPATH's folders), read from its string table.
    public func dynamicStrings(tagged tag: Int64, in entries: [DynamicEntry]) throws(ELFFile.Malformed) -> [String] {
        let wanted = entries.filter { $0.tag == tag }
        guard !wanted.isEmpty else { return [] }
        guard let table = entries.first(where: { $0.tag == Self.tagStringTable }),
              let tableOffset = fileOffset(ofAddress: table.value) else {
            throw Malformed(reason: "its dynamic string table is missing or outside the file")
        }
        var strings: [String] = []
        for entry in wanted {
            let (offset, overflow) = tableOffset.addingReportingOverflow(entry.value)
            guard !overflow else { throw Malformed(reason: "a dynamic string lies outside the file") }
            strings.append(try string(at: offset))
        }
        return strings
    }

    /// The values of the symbol table's (`.symtab`'s) defined functions among `names`, each
    /// the first of its name; one the table lacks is absent. Throws if the file has no
    /// symbol table: it was stripped.
    public func definedFunctions(named names: Set<String>) throws(ELFFile.Malformed) -> [String: UInt64] {
        guard let table = sections.first(where: { $0.type == Self.sectionSymbolTable }) else {
            throw Malformed(reason: "it has no symbol table (.symtab): it was stripped")
        }
        guard (24...1024).contains(table.entrySize), table.size <= UInt64(size), table.offset <= UInt64(size) - table.size,
              sections.indices.contains(Int(table.link)) else {
            throw Malformed(reason: "its symbol table's entries or string table are malformed")
        }
        let namesSection = sections[Int(table.link)]
        guard namesSection.size <= UInt64(size) else { throw Malformed(reason: "its symbol names lie outside the file") }
        let strings = try Self.read(descriptor, size: size, Int(namesSection.size), at: namesSection.offset, what: "the symbol names")
        let wanted = Dictionary(uniqueKeysWithValues: names.map { (Array($0.utf8), $0) })
        let longest = wanted.keys.map(\.count).max() ?? 0
        let entrySize = Int(table.entrySize)
        let count = Int(table.size) / entrySize
        let perRead = 4096
        var found: [String: UInt64] = [:]
        for first in stride(from: 0, to: count, by: perRead) where found.count < names.count {
            let n = min(perRead, count - first)
            let bytes = try Self.read(descriptor, size: size, n * entrySize, at: table.offset + UInt64(first * entrySize), what: "the symbol table")
            for index in 0..<n {
                let base = index * entrySize
                let info = bytes[base + 4], sectionIndex = bytes.u16(base + 6), nameOffset = Int(bytes.u32(base))
                guard info & 0xf == 2, sectionIndex != 0, nameOffset < strings.count else { continue }
                let end = strings[nameOffset...].prefix(longest + 1).firstIndex(of: 0) ?? strings.endIndex
                guard end - nameOffset <= longest, let name = wanted[Array(strings[nameOffset..<end])], found[name] == nil else { continue }
                found[name] = bytes.u64(base + 8)
            }
        }
        return found
    }

    /// The file offset where the loaded address `address` comes from, through the PT_LOAD
    /// segment that covers it.
    public func fileOffset(ofAddress address: UInt64) -> UInt64? {
        for segment in segments where segment.type == Self.segmentLoad {
            guard address >= segment.address, address - segment.address < segment.fileSize else { continue }
            let (offset, overflow) = segment.offset.addingReportingOverflow(address - segment.address)
            return overflow ? nil : offset
        }
        return nil
    }

    /// The longest string the launcher reads from a file: a library's name or a folder.
    static let longestString = 4096

    private func string(at offset: UInt64) throws(ELFFile.Malformed) -> String {
        let available = UInt64(size) > offset ? Int(UInt64(size) - offset) : 0
        let bytes = try Self.read(descriptor, size: size, min(Self.longestString, available), at: offset, what: "a string")
        guard let end = bytes.firstIndex(of: 0) else { throw Malformed(reason: "a string at \(offset) is unterminated or too long") }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    private static func read(_ descriptor: FileDescriptor, size: Int, _ count: Int, at offset: UInt64,
                             what: String) throws(ELFFile.Malformed) -> [UInt8] {
        let (end, overflow) = offset.addingReportingOverflow(UInt64(count))
        guard count >= 0, !overflow, end <= UInt64(size) else { throw Malformed(reason: "\(what) lies outside the file") }
        guard let bytes = try? descriptor.read(upTo: count, at: Int(offset)), bytes.count == count else {
            throw Malformed(reason: "\(what) can't be read")
        }
        return bytes
    }
}

private extension [UInt8] {
    func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[at + $1]) << (8 * $1) } }
    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[at + $1]) << (8 * $1) } }
}
