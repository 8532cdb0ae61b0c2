public import Foundation

/// `ErrorInfo` in docs/wire.proto: an `NSError`, flattened to what crosses a process.
public struct ErrorInfo: ProtoMessage, Hashable, Error, CustomStringConvertible {
    public var domain: String
    public var code: Int
    /// `NSLocalizedDescriptionKey`: what went wrong.
    public var message: String
    /// `NSLocalizedRecoverySuggestionErrorKey`: what to do.
    public var recoverySuggestion: String

    public init(domain: String, code: Int, message: String, recoverySuggestion: String = "") {
        self.domain = domain
        self.code = code
        self.message = message
        self.recoverySuggestion = recoverySuggestion
    }

    /// Flattens any error: an `NSError`'s domain, code and localized texts.
    public init(_ error: any Error) {
        if let info = error as? ErrorInfo {
            self = info
            return
        }
        let error = error as NSError
        self.init(domain: error.domain, code: error.code, message: error.localizedDescription,
                  recoverySuggestion: error.localizedRecoverySuggestion ?? "")
    }

    /// The error as an `NSError`, with the description and suggestion in its user info.
    public var nsError: NSError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if !recoverySuggestion.isEmpty { userInfo[NSLocalizedRecoverySuggestionErrorKey] = recoverySuggestion }
        return NSError(domain: domain, code: code, userInfo: userInfo)
    }

    public var description: String {
        "\(message) (\(domain) \(code))\(recoverySuggestion.isEmpty ? "" : " \(recoverySuggestion)")"
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, domain)
        writer.sint(2, Int64(code))
        writer.string(3, message)
        writer.string(4, recoverySuggestion)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(domain: "", code: 0, message: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: domain = try reader.string(field)
            case 2: code = Int(truncatingIfNeeded: try reader.sint(field))
            case 3: message = try reader.string(field)
            case 4: recoverySuggestion = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `AttributedText` in docs/wire.proto: an `NSAttributedString` as text plus attribute runs.
public struct AttributedText: ProtoMessage, Hashable {
    /// One run of attributes over a range, in UTF-16 code units.
    public struct Run: ProtoMessage, Hashable {
        public var location: Int
        public var length: Int
        public var attributes: PlistDictionary

        public init(location: Int, length: Int, attributes: PlistDictionary) {
            self.location = location
            self.length = length
            self.attributes = attributes
        }

        public func encode(to writer: inout ProtoWriter) {
            // uint64 on the wire: a negative range clamps to 0 rather than trapping.
            writer.uint(1, UInt64(clamping: location))
            writer.uint(2, UInt64(clamping: length))
            writer.message(3, attributes)
        }

        public init(from reader: inout ProtoReader) throws(WireError) {
            self.init(location: 0, length: 0, attributes: PlistDictionary())
            while let field = try reader.nextField() {
                switch field.number {
                case 1: location = try reader.uint(field, as: UInt32.self).int
                case 2: length = try reader.uint(field, as: UInt32.self).int
                case 3: attributes = try reader.message(field)
                default: try reader.skip(field)
                }
            }
        }
    }

    public var text: String
    public var runs: [Run]

    public init(text: String, runs: [Run] = []) {
        self.text = text
        self.runs = runs
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, text)
        writer.messages(2, runs)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(text: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: text = try reader.string(field)
            case 2: runs.append(try reader.message(field))
            default: try reader.skip(field)
            }
        }
    }
}

extension UInt32 {
    var int: Int { Int(self) }
}

extension ProtoWriter {
    /// A UUID field: its 16 bytes.
    public mutating func uuid(_ field: Int, _ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes(field, Array($0), always: true) }
    }

    /// A repeated UUID field.
    public mutating func uuids(_ field: Int, _ values: [UUID]) {
        for value in values { uuid(field, value) }
    }
}

extension UUID {
    /// All zeros: what a decoder starts from until it reads the real identifier. `UUID()`
    /// would draw a random one, a system call per decoded message, only to overwrite it.
    static let placeholder = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

extension ProtoReader {
    /// A UUID field, which must be exactly 16 bytes.
    public mutating func uuid(_ field: Field) throws(WireError) -> UUID {
        let raw = try bytes(field)
        guard raw.count == 16 else {
            throw WireError(.invalidValue, at: field.offset, "field \(field.number) should be a 16-byte UUID, not \(raw.count) bytes")
        }
        let b = Array(raw)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
