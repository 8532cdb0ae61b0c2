import Foundation

/// A look at a binary property list's object table before Foundation reads it, so that what
/// Foundation would build is bounded by what the file is, not by what its references say.
///
/// In a binary property list, objects refer to each other by number, and nothing stops many
/// references naming one array: 40 levels of arrays of 16 references to the level below fit
/// in 1 KB and stand for 16⁴⁰ values, which Foundation builds one by one, and Appex then
/// copies, until memory runs out (the billion-laughs attack of XML entities, by references).
/// So the table is walked once, each object counted with everything it holds, shared or not,
/// and the file is refused when that passes ``PropertyListStructure/maximumValueCount``, when
/// it nests deeper than ``PropertyListStructure/maximumDepth``, or when an object holds
/// itself: each with what it found and where.
///
/// It also refuses sets (marker `0xC_`), which property lists may not hold and which crash the
/// whole process in Foundation on Linux, where bridging the `NSSet` to Swift traps. Fuzzing
/// found that (Fuzz/Regressions/plist/).
struct BinaryPropertyList {
    /// The first bytes of every binary property list.
    private static let magic = Array("bplist".utf8)

    private let bytes: [UInt8]
    private let trailer: Int
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let topObject: Int
    private let tableStart: Int

    /// The table of `data`, a `bplist` file; nil if its trailer or offset table can't be read
    /// (Foundation refuses those, and says why).
    init?(_ data: Data) {
        let trailerSize = 32
        guard data.count >= 8 + trailerSize, data.starts(with: Self.magic) else { return nil }
        bytes = [UInt8](data)
        trailer = bytes.count - trailerSize
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let count = Int(exactly: Self.bigEndian(bytes[(trailer + 8)..<(trailer + 16)])),
              let top = Int(exactly: Self.bigEndian(bytes[(trailer + 16)..<(trailer + 24)])),
              let start = Int(exactly: Self.bigEndian(bytes[(trailer + 24)..<(trailer + 32)])),
              start >= 8, start <= trailer, count <= (trailer - start) / offsetSize, top < count
        else { return nil }
        objectCount = count
        topObject = top
        tableStart = start
    }

    /// Checks the table as the type's summary says. Objects it can't read are left for
    /// Foundation to refuse.
    func check() throws(PropertyListError) {
        // Each object's values (itself and everything below it, shared objects counted each
        // time they are reached) and depth, once its walk is done.
        var values = [Int](repeating: 0, count: objectCount)
        var depths = [Int](repeating: 0, count: objectCount)
        var state = [UInt8](repeating: 0, count: objectCount)  // 0 new, 1 on the walk's path, 2 done
        // The walk, without recursion: each frame is an object and its children still to go.
        var path: [(object: Int, children: [Int], next: Int)] = []
        func enter(_ object: Int) throws(PropertyListError) {
            if let offset = offset(of: object), bytes[offset] & 0xF0 == 0xC0 {
                throw PropertyListError(.malformed, "is a binary property list holding a set at byte \(offset); property lists hold arrays, not sets")
            }
            state[object] = 1
            path.append((object, children(of: object), 0))
        }
        try enter(topObject)
        while let frame = path.last {
            if frame.next < frame.children.count {
                path[path.count - 1].next += 1
                let child = frame.children[frame.next]
                switch state[child] {
                case 0: try enter(child)
                case 1: throw PropertyListError(.malformed, "is a binary property list whose object \(child)\(at(child)) holds itself, through "
                        + "\(path.count - path.firstIndex { $0.object == child }!) level(s) of arrays and dictionaries; a property list is a tree, "
                        + "and a file written by a property-list writer never refers to an object from inside it")
                default: continue
                }
                continue
            }
            path.removeLast()
            var total = 1
            var depth = 0
            for child in frame.children {
                total += values[child]
                depth = max(depth, depths[child])
            }
            if !frame.children.isEmpty { depth += 1 }
            if total > PropertyListStructure.maximumValueCount {
                throw PropertyListError(.tooLarge, "is a binary property list of \(bytes.count) bytes that stands for more than "
                    + "\(PropertyListStructure.maximumValueCount) values: its \(objectCount) objects refer to each other so that object \(frame.object)\(at(frame.object)) "
                    + "alone holds \(total), counting each shared array or dictionary as often as it is reached; Appex reads at most "
                    + "\(PropertyListStructure.maximumValueCount) values")
            }
            if depth > PropertyListStructure.maximumDepth {
                throw PropertyListError(.malformed, "nests arrays and dictionaries more than \(PropertyListStructure.maximumDepth) deep, "
                    + "at object \(frame.object)\(at(frame.object)) of this binary property list")
            }
            values[frame.object] = total
            depths[frame.object] = depth
            state[frame.object] = 2
        }
    }

    /// The byte offset of `object`, if its table entry is readable and points into the objects.
    private func offset(of object: Int) -> Int? {
        let entry = tableStart + object * offsetSize
        guard let offset = Int(exactly: Self.bigEndian(bytes[entry..<(entry + offsetSize)])), offset >= 8, offset < trailer else { return nil }
        return offset
    }

    private func at(_ object: Int) -> String {
        offset(of: object).map { " (at byte \($0))" } ?? ""
    }

    /// The objects an array, set or dictionary refers to: each reference, keys and values
    /// alike; none for any other object, or for one that can't be read.
    private func children(of object: Int) -> [Int] {
        guard let offset = offset(of: object) else { return [] }
        let marker = bytes[offset]
        let perEntry: Int
        switch marker >> 4 {
        case 0xA, 0xB, 0xC: perEntry = 1
        case 0xD: perEntry = 2
        default: return []
        }
        guard let (count, start) = count(at: offset), count <= (trailer - start) / (referenceSize * perEntry) else { return [] }
        return (0..<(count * perEntry)).compactMap { index in
            let at = start + index * referenceSize
            guard let reference = Int(exactly: Self.bigEndian(bytes[at..<(at + referenceSize)])), reference < objectCount else { return nil }
            return reference
        }
    }

    /// The count of the collection whose marker is at `offset`, and where its references begin.
    private func count(at offset: Int) -> (Int, Int)? {
        let nibble = Int(bytes[offset] & 0x0F)
        guard nibble == 0x0F else { return (nibble, offset + 1) }
        // A larger count follows as an integer object: 0x1N, then 2^N bytes.
        guard offset + 1 < trailer, bytes[offset + 1] & 0xF0 == 0x10 else { return nil }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        guard size <= 8, offset + 2 + size <= trailer,
              let count = Int(exactly: Self.bigEndian(bytes[(offset + 2)..<(offset + 2 + size)])) else { return nil }
        return (count, offset + 2 + size)
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
