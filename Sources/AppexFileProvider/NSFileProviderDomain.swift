public import Foundation

/// The name a provider gives one of its domains: no `/` and no `:`.
public struct NSFileProviderDomainIdentifier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// One tree of a provider's items, shown as a folder of its own: an account, a shared drive.
///
/// Appex mounts each domain at `~/Cloud/<provider>/<displayName>/` (docs/file-provider.md).
open class NSFileProviderDomain: NSObject, @unchecked Sendable {
    public let identifier: NSFileProviderDomainIdentifier
    /// The name the user sees: the domain's folder's name.
    public let displayName: String
    /// Whether the domain is added but its folder not served, for now.
    open internal(set) var isDisconnected: Bool
    /// Whether the user has turned the domain on.
    open internal(set) var userEnabled: Bool
    /// Whether the domain's folder is left out of what the user is shown.
    open var isHidden: Bool
    /// Whether the domain is replicated: always, for an `NSFileProviderReplicatedExtension`.
    open var isReplicated: Bool { true }

    public init(identifier: NSFileProviderDomainIdentifier, displayName: String) {
        self.identifier = identifier
        self.displayName = displayName
        isDisconnected = false
        userEnabled = true
        isHidden = false
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? NSFileProviderDomain)?.identifier == identifier
    }

    open override var hash: Int { identifier.hashValue }

    open override var description: String { "NSFileProviderDomain(\(identifier.rawValue), \"\(displayName)\")" }
}
