public import AppexCore

/// `QueryExtensions` in docs/wire.proto: which extensions of a point fit some items, or one
/// extension by identifier.
public struct QueryExtensions: ProtoMessage, Hashable {
    public var call: UInt64
    public var point: String
    public var identifier: String
    public var items: ActivationItems
    public var includeDisabled: Bool

    public init(call: UInt64, point: String = "", identifier: String = "", items: ActivationItems = ActivationItems([]), includeDisabled: Bool = false) {
        self.call = call
        self.point = point
        self.identifier = identifier
        self.items = items
        self.includeDisabled = includeDisabled
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, point)
        writer.string(3, identifier)
        writer.message(4, Repeated(values: items.extensionItems.map(WireActivationItem.init)))
        writer.bool(5, includeDisabled)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: point = try reader.string(field)
            case 3: identifier = try reader.string(field)
            case 4: items = ActivationItems(try reader.message(field, as: Repeated<WireActivationItem>.self).values.map(\.item))
            case 5: includeDisabled = try reader.bool(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `ActivationItem` in docs/wire.proto.
struct WireActivationItem: ProtoMessage {
    var item = ActivationItems.Item()

    init(_ item: ActivationItems.Item) { self.item = item }

    func encode(to writer: inout ProtoWriter) {
        writer.string(1, item.attributedTitle)
        writer.string(2, item.attributedContentText)
        if let userInfo = item.userInfo { writer.message(3, PlistDictionary(userInfo)) }
        writer.messages(4, item.attachments.map(WireActivationAttachment.init))
    }

    init(from reader: inout ProtoReader) throws(WireError) {
        while let field = try reader.nextField() {
            switch field.number {
            case 1: item.attributedTitle = try reader.string(field)
            case 2: item.attributedContentText = try reader.string(field)
            case 3: item.userInfo = try reader.message(field, as: PlistDictionary.self).entries
            case 4: item.attachments.append(try reader.message(field, as: WireActivationAttachment.self).attachment)
            default: try reader.skip(field)
            }
        }
    }
}

/// `ActivationAttachment` in docs/wire.proto.
struct WireActivationAttachment: ProtoMessage {
    var attachment = ActivationItems.Attachment(registeredTypeIdentifiers: [])

    init(_ attachment: ActivationItems.Attachment) { self.attachment = attachment }

    func encode(to writer: inout ProtoWriter) {
        writer.strings(1, attachment.registeredTypeIdentifiers)
        writer.string(2, attachment.suggestedName)
        if let size = attachment.fileSize { writer.uint(3, UInt64(max(0, size)), always: true) }
    }

    init(from reader: inout ProtoReader) throws(WireError) {
        while let field = try reader.nextField() {
            switch field.number {
            case 1: attachment.registeredTypeIdentifiers.append(try reader.string(field))
            case 2: attachment.suggestedName = try reader.string(field)
            case 3: attachment.fileSize = Int(clamping: try reader.uint(field))
            default: try reader.skip(field)
            }
        }
    }
}

/// A message whose field 1 repeats `Element`, such as `ActivationItems` or `PlistArray`.
struct Repeated<Element: ProtoMessage>: ProtoMessage {
    var values: [Element] = []

    init(values: [Element]) { self.values = values }

    func encode(to writer: inout ProtoWriter) { writer.messages(1, values) }

    init(from reader: inout ProtoReader) throws(WireError) {
        while let field = try reader.nextField() {
            if field.number == 1 { values.append(try reader.message(field)) } else { try reader.skip(field) }
        }
    }
}

/// `QueryResult` in docs/wire.proto: the matching extensions, in the user's order.
public struct QueryResult: ProtoMessage, Hashable {
    public var call: UInt64
    public var extensions: [ExtensionSummary]

    public init(call: UInt64, extensions: [ExtensionSummary]) {
        self.call = call
        self.extensions = extensions
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.messages(2, extensions)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, extensions: [])
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: extensions.append(try reader.message(field))
            default: try reader.skip(field)
            }
        }
    }
}

/// `ExtensionSummary` in docs/wire.proto: what a host needs to show and pick an extension.
public struct ExtensionSummary: ProtoMessage, Hashable {
    public var identifier: String
    public var point: String
    public var displayName: String
    public var version: String
    public var containingApp: String
    public var bundlePath: String
    public var isEnabled: Bool
    /// `NSExtensionJavaScriptPreprocessingFile`, or empty: the script a browser runs in a web
    /// page before a Share or Action extension starts.
    public var javaScriptPreprocessingFile: String

    public init(identifier: String, point: String, displayName: String, version: String, containingApp: String, bundlePath: String, isEnabled: Bool,
                javaScriptPreprocessingFile: String = "") {
        self.identifier = identifier
        self.point = point
        self.displayName = displayName
        self.version = version
        self.containingApp = containingApp
        self.bundlePath = bundlePath
        self.isEnabled = isEnabled
        self.javaScriptPreprocessingFile = javaScriptPreprocessingFile
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.string(1, identifier)
        writer.string(2, point)
        writer.string(3, displayName)
        writer.string(4, version)
        writer.string(5, containingApp)
        writer.string(6, bundlePath)
        writer.bool(7, isEnabled)
        writer.string(8, javaScriptPreprocessingFile)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(identifier: "", point: "", displayName: "", version: "", containingApp: "", bundlePath: "", isEnabled: false)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: identifier = try reader.string(field)
            case 2: point = try reader.string(field)
            case 3: displayName = try reader.string(field)
            case 4: version = try reader.string(field)
            case 5: containingApp = try reader.string(field)
            case 6: bundlePath = try reader.string(field)
            case 7: isEnabled = try reader.bool(field)
            case 8: javaScriptPreprocessingFile = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}
