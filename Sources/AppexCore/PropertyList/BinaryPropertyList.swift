import Foundation

/// A look at a binary property list's object table before Foundation reads it.
///
/// Foundation on Linux crashes the whole process when a binary property list holds a set
/// (object marker `0xC_`): bridging the `NSSet` it builds to Swift traps. Property lists may
/// not hold sets anyway, so a file with one is refused before Foundation sees it.
/// Fuzzing found this (Fuzz/Regressions/plist/).
enum BinaryPropertyList {
    /// The byte offset of the first set among the objects of `data`, a `bplist` file; nil if
    /// it has none, or if its trailer or offset table can't be read (Foundation refuses those).
    static func firstSet(in data: Data) -> Int? {
        let trailerSize = 32
        guard data.count >= 8 + trailerSize, data.starts(with: Array("bplist".utf8)) else { return nil }
        let bytes = [UInt8](data)
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize),
              let objectCount = Int(exactly: bigEndian(bytes[(trailer + 8)..<(trailer + 16)])),
              let tableStart = Int(exactly: bigEndian(bytes[(trailer + 24)..<(trailer + 32)])),
              tableStart >= 8, tableStart <= trailer,
              objectCount <= (trailer - tableStart) / offsetSize else { return nil }
        for index in 0..<objectCount {
            let entry = tableStart + index * offsetSize
            guard let offset = Int(exactly: bigEndian(bytes[entry..<(entry + offsetSize)])), offset >= 8, offset < trailer else { continue }
            if bytes[offset] & 0xF0 == 0xC0 { return offset }
        }
        return nil
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
