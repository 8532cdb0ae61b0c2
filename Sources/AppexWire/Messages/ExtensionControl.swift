public import Foundation

/// `CheckIn` in docs/wire.proto: an extension's first word to the daemon once it is ready.
public struct CheckIn: ProtoMessage, Hashable {
    public var bundleIdentifier: String

    public init(bundleIdentifier: String) { self.bundleIdentifier = bundleIdentifier }

    public func encode(to writer: inout ProtoWriter) { writer.string(1, bundleIdentifier) }

    public init(from reader: inout ProtoReader) throws(WireError) {
        bundleIdentifier = ""
        while let field = try reader.nextField() {
            if field.number == 1 { bundleIdentifier = try reader.string(field) } else { try reader.skip(field) }
        }
    }
}

/// `OpenURL` in docs/wire.proto: an extension asks to open a URL (`NSExtensionContext.open`)
/// for one of its requests. From version 6, appexd passes it on, as a call, to that request's
/// host, which confirms with the user: with the extension's identifier and name, and the
/// name of the app that would open it, filled in.
public struct OpenURL: ProtoMessage, Hashable {
    public var call: UInt64
    public var url: String
    /// The request the extension asks for, whose host confirms; absent before version 6.
    public var requestID: UUID?
    /// Set by appexd on the way to the host: the extension's bundle identifier and name.
    public var extensionIdentifier: String
    public var extensionName: String
    /// Set by appexd on the way to the host: the app that would open the URL.
    public var appName: String

    public init(call: UInt64, url: String, requestID: UUID? = nil, extensionIdentifier: String = "", extensionName: String = "", appName: String = "") {
        self.call = call
        self.url = url
        self.requestID = requestID
        self.extensionIdentifier = extensionIdentifier
        self.extensionName = extensionName
        self.appName = appName
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.string(2, url)
        if let requestID { writer.uuid(3, requestID) }
        writer.string(4, extensionIdentifier)
        writer.string(5, extensionName)
        writer.string(6, appName)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, url: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: url = try reader.string(field)
            case 3: requestID = try reader.uuid(field)
            case 4: extensionIdentifier = try reader.string(field)
            case 5: extensionName = try reader.string(field)
            case 6: appName = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}

/// `OpenURLResult` in docs/wire.proto: whether the daemon opened it, and if not, why.
public struct OpenURLResult: ProtoMessage, Hashable {
    public var call: UInt64
    public var opened: Bool
    public var reason: String

    public init(call: UInt64, opened: Bool, reason: String) {
        self.call = call
        self.opened = opened
        self.reason = reason
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.uint(1, call)
        writer.bool(2, opened)
        writer.string(3, reason)
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        self.init(call: 0, opened: false, reason: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: call = try reader.uint(field)
            case 2: opened = try reader.bool(field)
            case 3: reason = try reader.string(field)
            default: try reader.skip(field)
            }
        }
    }
}
