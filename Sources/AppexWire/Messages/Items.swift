public import AppexCore
public import Foundation

/// `Item` in docs/wire.proto: one `NSExtensionItem`.
public struct WireItem: ProtoMessage, Hashable {
    public var attributedTitle: AttributedText?
    public var attributedContentText: AttributedText?
    public var userInfo: [String: PropertyListValue]
    public var attachments: [WireAttachment]

    public init(attributedTitle: AttributedText? = nil, attributedContentText: AttributedText? = nil,
                userInfo: [String: PropertyListValue] = [:], attachments: [WireAttachment] = []) {
        self.attributedTitle = attributedTitle
        self.attributedContentText = attributedContentText
        self.userInfo = userInfo
        self.attachments = attachments
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.message(1, attributedTitle)
        writer.message(2, attributedContentText)
        if !userInfo.isEmpty { writer.message(3, PlistDictionary(userInfo)) }
        writer.messages(4, attachments)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init()
        while let field = try reader.nextField() {
            switch field.number {
            case 1: attributedTitle = try reader.message(field)
            case 2: attributedContentText = try reader.message(field)
            case 3: userInfo = try reader.message(field, as: PlistDictionary.self).entries
            case 4: attachments.append(try reader.message(field))
            default: try reader.skip(field)
            }
        }
    }
}

/// `Attachment` in docs/wire.proto: one `NSItemProvider`, by the id its owner gave it.
public struct WireAttachment: ProtoMessage, Hashable {
    public var providerID: UInt64
    public var suggestedName: String?
    public var representations: [WireRepresentation]
    /// The provider's preview image, if it has a `previewImageHandler`: an item loaded under
    /// ``WireRepresentation/previewTypeIdentifier``, with its payload in returned items.
    public var preview: WireRepresentation?

    public init(providerID: UInt64, suggestedName: String? = nil, representations: [WireRepresentation], preview: WireRepresentation? = nil) {
        self.providerID = providerID
        self.suggestedName = suggestedName
        self.representations = representations
        self.preview = preview
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, providerID)
        writer.string(2, suggestedName)
        writer.messages(3, representations)
        writer.message(4, preview)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(providerID: 0, representations: [])
        while let field = try reader.nextField() {
            switch field.number {
            case 1: providerID = try reader.uint(field)
            case 2: suggestedName = try reader.string(field)
            case 3: representations.append(try reader.message(field))
            case 4: preview = try reader.message(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `Representation` in docs/wire.proto: one registered type of a provider, and in returned
/// items its payload.
public struct WireRepresentation: ProtoMessage, Hashable {
    /// How the provider registered the type.
    public enum Kind: UInt64, Sendable, Hashable {
        case data = 0, file = 1, item = 2
    }

    public var typeIdentifier: String
    public var kind: Kind
    public var opensInPlace: Bool
    public var payload: Payload?

    /// The type a provider's preview image is loaded as, in a ``LoadRequest``: no type a
    /// provider registers, so a load of it runs the `previewImageHandler`.
    public static let previewTypeIdentifier = "org.appex.item-provider.preview-image"

    public init(typeIdentifier: String, kind: Kind, opensInPlace: Bool = false, payload: Payload? = nil) {
        self.typeIdentifier = typeIdentifier
        self.kind = kind
        self.opensInPlace = opensInPlace
        self.payload = payload
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, typeIdentifier)
        writer.uint(2, kind.rawValue)
        writer.bool(3, opensInPlace)
        writer.message(4, payload)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(typeIdentifier: "", kind: .data)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: typeIdentifier = try reader.string(field)
            case 2: kind = try Kind.read(field, from: &reader)
            case 3: opensInPlace = try reader.bool(field)
            case 4: payload = try reader.message(field)
            default: try reader.skip(field)
            }
        }
    }
}

extension WireRepresentation.Kind {
    static func read(_ field: ProtoReader.Field, from reader: inout ProtoReader) throws(WireError) -> Self {
        let raw = try reader.uint(field)
        guard let kind = Self(rawValue: raw) else {
            throw WireError(.invalidValue, at: field.offset, "representation kind \(raw) is not data (0), file (1) or item (2)")
        }
        return kind
    }
}

/// `Payload` in docs/wire.proto: a representation's value, inline or in a descriptor.
public enum Payload: ProtoMessage, Hashable {
    /// Bytes carried in the frame.
    case data(Data)
    /// A file or memory file in the frame's descriptor slot `slot`.
    case descriptor(slot: Int, length: Int, filename: String)
    /// A property-list item.
    case item(PropertyListValue)
    /// An item that is a URL.
    case url(String)
    /// The load failed.
    case error(ErrorInfo)

    public func encode(to writer: inout ProtoWriter) {
        switch self {
        case .data(let data): writer.bytes(1, data, always: true)
        case .descriptor(let slot, let length, let filename):
            writer.message(2, DescriptorSlot(slot: slot, length: length, filename: filename))
        case .item(let value): writer.message(3, value)
        case .url(let url): writer.string(4, url, always: true)
        case .error(let error): writer.message(5, error)
        }
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var payload: Payload?
        while let field = try reader.nextField() {
            switch field.number {
            case 1: payload = .data(Data(try reader.bytes(field)))
            case 2:
                let slot = try reader.message(field, as: DescriptorSlot.self)
                payload = .descriptor(slot: slot.slot, length: slot.length, filename: slot.filename)
            case 3: payload = .item(try reader.message(field))
            case 4: payload = .url(try reader.string(field))
            case 5: payload = .error(try reader.message(field))
            default: try reader.skip(field)
            }
        }
        guard let payload else { throw reader.missing("value", in: "a Payload") }
        self = payload
    }

    /// The descriptor slot it refers to, if any.
    public var slot: Int? {
        if case .descriptor(let slot, _, _) = self { return slot }
        return nil
    }
}

/// `Descriptor` in docs/wire.proto.
struct DescriptorSlot: ProtoMessage {
    var slot = 0
    var length = 0
    var filename = ""

    init(slot: Int, length: Int, filename: String) {
        self.slot = slot
        self.length = length
        self.filename = filename
    }

    func encode(to writer: inout ProtoWriter) {
        // uint64 on the wire: a negative slot or length clamps to 0 rather than trapping.
        writer.uint(1, UInt64(clamping: slot))
        writer.uint(2, UInt64(clamping: length))
        writer.string(3, filename)
    }

    init(from reader: inout ProtoReader) throws(WireError) {
        while let field = try reader.nextField() {
            switch field.number {
            case 1: slot = Int(try reader.uint(field, as: UInt8.self))
            case 2: length = Int(clamping: try reader.uint(field))
            case 3: filename = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}
