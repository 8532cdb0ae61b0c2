public import Foundation

/// An item's version, in two parts the provider chooses: its contents' and its metadata's.
///
/// A new `contentVersion` tells the system that the contents changed: a copy it holds is out
/// of date, and is fetched again. The `metadataVersion` is kept and handed back as a base
/// version, and otherwise not read. Each part is at most 128 bytes.
open class NSFileProviderItemVersion: NSObject, @unchecked Sendable {
    /// The version of the item's contents.
    public let contentVersion: Data
    /// The version of everything else about the item.
    public let metadataVersion: Data

    public init(contentVersion: Data, metadataVersion: Data) {
        self.contentVersion = contentVersion
        self.metadataVersion = metadataVersion
    }

    /// A version the system has not yet had from the provider.
    public override convenience init() {
        self.init(contentVersion: Self.beforeFirstSyncComponent, metadataVersion: Self.beforeFirstSyncComponent)
    }

    /// The part of a base version that stands for a state the provider never confirmed, such
    /// as an item's before its creation was answered.
    public class var beforeFirstSyncComponent: Data { Data() }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFileProviderItemVersion else { return false }
        return contentVersion == other.contentVersion && metadataVersion == other.metadataVersion
    }

    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(contentVersion)
        hasher.combine(metadataVersion)
        return hasher.finalize()
    }

    open override var description: String {
        "NSFileProviderItemVersion(content: \(contentVersion.count) bytes, metadata: \(metadataVersion.count) bytes)"
    }
}
