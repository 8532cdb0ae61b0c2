/// `WidgetHasContent` in docs/wire.proto: a widget, or the app that contains it, tells appexd
/// whether the widget has content to show (`NCWidgetController.setHasContent`), on a client
/// connection or the widget's control channel. appexd finds who is asking from the kernel.
public struct WidgetHasContent: ProtoMessage, Hashable {
    public var call: UInt64
    public var widgetIdentifier: String
    public var hasContent: Bool

    public init(call: UInt64, widgetIdentifier: String, hasContent: Bool) {
        self.call = call
        self.widgetIdentifier = widgetIdentifier
        self.hasContent = hasContent
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, widgetIdentifier)
        writer.bool(3, hasContent)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, widgetIdentifier: "", hasContent: false)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: widgetIdentifier = try reader.string(field)
            case 3: hasContent = try reader.bool(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `WidgetHasContentResult` in docs/wire.proto: an empty `reason` when appexd kept the
/// setting, or why it refused.
public struct WidgetHasContentResult: ProtoMessage, Hashable {
    public var call: UInt64
    public var reason: String

    public init(call: UInt64, reason: String = "") {
        self.call = call
        self.reason = reason
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, reason)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: reason = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}
