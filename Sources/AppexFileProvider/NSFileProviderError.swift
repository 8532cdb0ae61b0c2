public import Foundation

/// The domain of ``NSFileProviderError``s, as `NSError` reports them.
public let NSFileProviderErrorDomain = "NSFileProviderErrorDomain"
/// The `userInfo` key of the item a ``NSFileProviderError/Code/filenameCollision`` collided with.
public let NSFileProviderErrorItemKey = "NSFileProviderErrorItem"
/// The `userInfo` key of the identifier a ``NSFileProviderError/Code/noSuchItem`` names.
public let NSFileProviderErrorNonExistentItemIdentifierKey = "NSFileProviderErrorNonExistentItemIdentifier"

/// An error of the File Provider system, with Apple's codes.
///
/// ```swift
/// completionHandler(nil, NSFileProviderError(.noSuchItem))
/// catch NSFileProviderError.noSuchItem { … }
/// ```
public struct NSFileProviderError: CustomNSError, Hashable, @unchecked Sendable {
    /// Apple's codes, with their values.
    public enum Code: Int, Sendable {
        case notAuthenticated = -1000
        case filenameCollision = -1001
        case syncAnchorExpired = -1002
        case insufficientQuota = -1003
        case serverUnreachable = -1004
        case noSuchItem = -1005
        case deletionRejected = -1006
        case directoryNotEmpty = -1007
        case providerNotFound = -2001
        case providerTranslocated = -2002
        case olderExtensionVersionRunning = -2003
        case newerExtensionVersionFound = -2004
        case cannotSynchronize = -2005
        case nonEvictableChildren = -2006
        case unsyncedEdits = -2007
        case nonEvictable = -2008
        case versionNoLongerAvailable = -2009
        case excludedFromSync = -2010
        case domainDisabled = -2011
        case providerDomainTemporarilyUnavailable = -2012
        case providerDomainNotFound = -2013
        case applicationExtensionNotFound = -2014

        /// A page that expired: the same code as ``syncAnchorExpired``.
        public static var pageExpired: Code { .syncAnchorExpired }
    }

    public let code: Code
    /// What else the error carries, such as ``NSFileProviderErrorItemKey``: property-list values.
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    public static var errorDomain: String { NSFileProviderErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    public static func == (lhs: NSFileProviderError, rhs: NSFileProviderError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var notAuthenticated: Code { .notAuthenticated }
    public static var filenameCollision: Code { .filenameCollision }
    public static var syncAnchorExpired: Code { .syncAnchorExpired }
    public static var pageExpired: Code { .syncAnchorExpired }
    public static var insufficientQuota: Code { .insufficientQuota }
    public static var serverUnreachable: Code { .serverUnreachable }
    public static var noSuchItem: Code { .noSuchItem }
    public static var deletionRejected: Code { .deletionRejected }
    public static var directoryNotEmpty: Code { .directoryNotEmpty }
    public static var cannotSynchronize: Code { .cannotSynchronize }
    public static var nonEvictable: Code { .nonEvictable }
    public static var unsyncedEdits: Code { .unsyncedEdits }
}

extension NSFileProviderError.Code {
    /// Matches an error of this code, so that `catch NSFileProviderError.noSuchItem` works.
    public static func ~= (code: Self, error: any Error) -> Bool {
        if let error = error as? NSFileProviderError { return error.code == code }
        let error = error as NSError
        return error.domain == NSFileProviderErrorDomain && error.code == code.rawValue
    }
}

extension NSError {
    /// A ``NSFileProviderError/Code/filenameCollision`` with the item that has the name.
    public class func fileProviderErrorForCollision(with existingItem: any NSFileProviderItem) -> Self {
        make(.filenameCollision, userInfo: [NSFileProviderErrorItemKey: existingItem])
    }

    /// A ``NSFileProviderError/Code/noSuchItem`` naming the identifier.
    public class func fileProviderErrorForNonExistentItem(withIdentifier itemIdentifier: NSFileProviderItemIdentifier) -> Self {
        make(.noSuchItem, userInfo: [NSFileProviderErrorNonExistentItemIdentifierKey: itemIdentifier.rawValue])
    }

    /// A ``NSFileProviderError/Code/deletionRejected`` with the item as the provider keeps it.
    public class func fileProviderErrorForRejectedDeletion(of updatedVersion: any NSFileProviderItem) -> Self {
        make(.deletionRejected, userInfo: [NSFileProviderErrorItemKey: updatedVersion])
    }

    /// An `NSError` of the File Provider domain. `NSError`'s initializer is not `required` in
    /// swift-corelibs-foundation, so these can't make a subclass: called on one, they trap.
    private class func make(_ code: NSFileProviderError.Code, userInfo: [String: Any]) -> Self {
        NSError(domain: NSFileProviderErrorDomain, code: code.rawValue, userInfo: userInfo) as! Self
    }
}
