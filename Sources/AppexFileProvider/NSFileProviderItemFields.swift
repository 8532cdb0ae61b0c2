/// Which of an item's fields a creation or change carries.
public struct NSFileProviderItemFields: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let contents = NSFileProviderItemFields(rawValue: 1 << 0)
    public static let filename = NSFileProviderItemFields(rawValue: 1 << 1)
    public static let parentItemIdentifier = NSFileProviderItemFields(rawValue: 1 << 2)
    public static let lastUsedDate = NSFileProviderItemFields(rawValue: 1 << 3)
    public static let tagData = NSFileProviderItemFields(rawValue: 1 << 4)
    public static let favoriteRank = NSFileProviderItemFields(rawValue: 1 << 5)
    public static let creationDate = NSFileProviderItemFields(rawValue: 1 << 6)
    public static let contentModificationDate = NSFileProviderItemFields(rawValue: 1 << 7)
    public static let fileSystemFlags = NSFileProviderItemFields(rawValue: 1 << 8)
    public static let extendedAttributes = NSFileProviderItemFields(rawValue: 1 << 9)
    public static let typeAndCreator = NSFileProviderItemFields(rawValue: 1 << 10)
}

/// What the user may do with an item. As on Apple's platforms, this shapes what the host
/// offers; a change made to the files directly still reaches the provider, which may refuse it.
public struct NSFileProviderItemCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let allowsReading = NSFileProviderItemCapabilities(rawValue: 1 << 0)
    public static let allowsWriting = NSFileProviderItemCapabilities(rawValue: 1 << 1)
    public static let allowsReparenting = NSFileProviderItemCapabilities(rawValue: 1 << 2)
    public static let allowsRenaming = NSFileProviderItemCapabilities(rawValue: 1 << 3)
    public static let allowsTrashing = NSFileProviderItemCapabilities(rawValue: 1 << 4)
    public static let allowsDeleting = NSFileProviderItemCapabilities(rawValue: 1 << 5)
    public static let allowsEvicting = NSFileProviderItemCapabilities(rawValue: 1 << 6)
    public static let allowsExcludingFromSync = NSFileProviderItemCapabilities(rawValue: 1 << 7)
    /// A folder's: new items may be made in it (the same bit as ``allowsWriting``).
    public static let allowsAddingSubItems = allowsWriting
    /// A folder's: it may be listed (the same bit as ``allowsReading``).
    public static let allowsContentEnumerating = allowsReading
    /// The first six, as Apple defines it (deprecated there in favour of naming them).
    public static let allowsAll: NSFileProviderItemCapabilities = [.allowsReading, .allowsWriting, .allowsReparenting,
                                                                   .allowsRenaming, .allowsTrashing, .allowsDeleting]
}

/// An item's flags in the file system: who may read, write and run it, and whether it hides.
public struct NSFileProviderFileSystemFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let userExecutable = NSFileProviderFileSystemFlags(rawValue: 1 << 0)
    public static let userReadable = NSFileProviderFileSystemFlags(rawValue: 1 << 1)
    public static let userWritable = NSFileProviderFileSystemFlags(rawValue: 1 << 2)
    public static let hidden = NSFileProviderFileSystemFlags(rawValue: 1 << 3)
    public static let pathExtensionHidden = NSFileProviderFileSystemFlags(rawValue: 1 << 4)
}

/// How a creation is to be taken.
public struct NSFileProviderCreateItemOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The item may exist on the provider's side already (the system is replaying a creation).
    public static let mayAlreadyExist = NSFileProviderCreateItemOptions(rawValue: 1 << 0)
    /// The provider deleted the item while it was changed here: this re-creates it.
    public static let deletionConflicted = NSFileProviderCreateItemOptions(rawValue: 1 << 1)
}

/// How a change is to be taken.
public struct NSFileProviderModifyItemOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The change may have been applied already (the system is replaying it).
    public static let mayAlreadyExist = NSFileProviderModifyItemOptions(rawValue: 1 << 0)
}

/// How a deletion is to be taken.
public struct NSFileProviderDeleteItemOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Delete a folder with everything in it; without it, a folder that isn't empty is refused.
    public static let recursive = NSFileProviderDeleteItemOptions(rawValue: 1 << 0)
}
