import Glibc

/// A ``LaunchOrder`` as it travels on the launcher's socket: its fields in a fixed order,
/// integers little-endian, each string, list and map after its count, each optional after a
/// byte that says whether it is there. Foundation's JSON took about 0.4 ms of a cold start
/// to write and read an order (BENCHMARKS.md, "Where a forked cold start's time goes"); this
/// takes microseconds. Every count and length is checked against what is left, so a message
/// that lies about them is refused, never trusted.
extension LaunchOrder {
    /// The order's bytes.
    public func encoded() -> [UInt8] {
        var writer = OrderWriter()
        writer.string(executable)
        writer.integer(mainAddress)
        writer.strings(arguments)
        writer.count(environment.count)
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            writer.string(value)
        }
        writer.count(descriptorTargets.count)
        for target in descriptorTargets { writer.integer(UInt32(bitPattern: target)) }
        writer.optional(directory) { $0.string($1) }
        writer.flag(diesWithParent)
        writer.optional(addressSpaceLimit) { $0.integer($1) }
        writer.optional(restrictions) { writer, restrictions in
            writer.integer(UInt32(bitPattern: restrictions.namespaces.rawValue))
            writer.count(restrictions.resourceLimits.count)
            for (resource, limit) in restrictions.resourceLimits.sorted(by: { $0.key < $1.key }) {
                writer.integer(UInt32(bitPattern: resource))
                writer.integer(limit)
            }
            writer.optional(restrictions.landlock) { writer, landlock in
                writer.integer(UInt64(bitPattern: Int64(landlock.abi)))
                writer.integer(landlock.handledFilesystem.rawValue)
                writer.integer(landlock.handledNetwork.rawValue)
                writer.integer(landlock.scopes.rawValue)
                writer.count(landlock.rules.count)
                for rule in landlock.rules {
                    writer.string(rule.path)
                    writer.integer(rule.access.rawValue)
                    writer.optional(rule.confinedTo) { $0.string($1) }
                }
            }
            writer.flag(restrictions.seccompBaseline)
            writer.flag(restrictions.seccompRefusesExecutableMemory)
            writer.strings(restrictions.hiddenPaths)
        }
        writer.flag(joinsEmptyNetwork)
        return writer.bytes
    }

    /// The order `bytes` encode; throws EBADMSG, saying what is wrong, if they are not one.
    public init(decoding bytes: [UInt8]) throws(SystemError) {
        var reader = OrderReader(bytes: bytes)
        executable = try reader.string()
        mainAddress = try reader.integer()
        arguments = try reader.strings()
        var environment: [String: String] = [:]
        for _ in 0..<(try reader.count(eachAtLeast: 8)) {
            let name = try reader.string()
            environment[name] = try reader.string()
        }
        self.environment = environment
        descriptorTargets = try (0..<(try reader.count(eachAtLeast: 4))).map { _ throws(SystemError) in Int32(bitPattern: try reader.integer()) }
        directory = try reader.optional { reader throws(SystemError) in try reader.string() }
        diesWithParent = try reader.flag()
        addressSpaceLimit = try reader.optional { reader throws(SystemError) in try reader.integer() }
        restrictions = try reader.optional { reader throws(SystemError) in
            var restrictions = ProcessRestrictions(namespaces: .init(rawValue: Int32(bitPattern: try reader.integer())))
            for _ in 0..<(try reader.count(eachAtLeast: 12)) {
                let resource = Int32(bitPattern: try reader.integer())
                restrictions.resourceLimits[resource] = try reader.integer()
            }
            restrictions.landlock = try reader.optional { reader throws(SystemError) in
                var landlock = LandlockRuleset(abi: Int(Int64(bitPattern: try reader.integer())),
                                               handledFilesystem: .init(rawValue: try reader.integer()),
                                               handledNetwork: .init(rawValue: try reader.integer()),
                                               scopes: .init(rawValue: try reader.integer()))
                for _ in 0..<(try reader.count(eachAtLeast: 13)) {
                    let path = try reader.string()
                    let access = LandlockRuleset.FilesystemAccess(rawValue: try reader.integer())
                    landlock.rules.append(LandlockRuleset.Rule(path, access, confinedTo: try reader.optional { reader throws(SystemError) in try reader.string() }))
                }
                return landlock
            }
            restrictions.seccompBaseline = try reader.flag()
            restrictions.seccompRefusesExecutableMemory = try reader.flag()
            restrictions.hiddenPaths = try reader.strings()
            return restrictions
        }
        joinsEmptyNetwork = try reader.flag()
        try reader.finish()
    }
}

/// Writes an order's fields.
private struct OrderWriter {
    var bytes: [UInt8] = []

    mutating func integer<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func count(_ count: Int) { integer(UInt32(count)) }

    mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func string(_ value: String) {
        count(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func strings(_ values: [String]) {
        count(values.count)
        for value in values { string(value) }
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout OrderWriter, Value) -> Void) {
        flag(value != nil)
        if let value { write(&self, value) }
    }
}

/// Reads an order's fields, each checked against what is left.
private struct OrderReader {
    let bytes: [UInt8]
    var offset = 0

    private func malformed(_ what: String) -> SystemError {
        SystemError("decode", subject: "a launch order: \(what) at byte \(offset) of \(bytes.count)", errno: EBADMSG)
    }

    mutating func integer<Value: FixedWidthInteger & UnsignedInteger>() throws(SystemError) -> Value {
        let size = MemoryLayout<Value>.size
        guard bytes.count - offset >= size else { throw malformed("an integer cut short") }
        var value: Value = 0
        for index in 0..<size { value |= Value(bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    /// A count of items each at least `size` bytes long, which must fit in what is left.
    mutating func count(eachAtLeast size: Int) throws(SystemError) -> Int {
        let count = Int(try integer() as UInt32)
        guard count <= (bytes.count - offset) / size else { throw malformed("a count of \(count) that the bytes left can't hold") }
        return count
    }

    mutating func flag() throws(SystemError) -> Bool {
        guard offset < bytes.count else { throw malformed("a flag cut short") }
        guard bytes[offset] <= 1 else { throw malformed("a flag of \(bytes[offset]), neither 0 nor 1") }
        offset += 1
        return bytes[offset - 1] == 1
    }

    mutating func string() throws(SystemError) -> String {
        let length = try count(eachAtLeast: 1)
        guard let value = String(validating: bytes[offset..<offset + length], as: UTF8.self) else { throw malformed("a string that is not UTF-8") }
        offset += length
        return value
    }

    mutating func strings() throws(SystemError) -> [String] {
        var values: [String] = []
        for _ in 0..<(try count(eachAtLeast: 4)) { values.append(try string()) }
        return values
    }

    mutating func optional<Value>(_ read: (inout OrderReader) throws(SystemError) -> Value) throws(SystemError) -> Value? {
        try flag() ? try read(&self) : nil
    }

    func finish() throws(SystemError) {
        guard offset == bytes.count else { throw malformed("\(bytes.count - offset) bytes after the order") }
    }
}
