public import Foundation

extension NSItemProvider {
    /// The error domain of ``NSItemProviderError``, as Apple's `NSItemProvider.errorDomain`.
    public static let errorDomain = "NSItemProviderErrorDomain"

    /// The codes of ``NSItemProviderError``, with Apple's names and values: an enum, as
    /// Apple's is, so a `switch` over its four cases needs no `default`.
    public enum ErrorCode: Int, Sendable, Hashable, CustomStringConvertible {
        /// Something went wrong that no other code describes. (-1)
        case unknownError = -1
        /// No representation conforms to the requested type, or its handler gave nothing. (-1000)
        case itemUnavailableError = -1000
        /// A handler gave a value of the wrong kind, such as a web URL for a file. (-1100)
        case unexpectedValueClassError = -1100
        /// The representation could not be turned into what was asked for, such as a file
        /// that could not be read into data. (-1200)
        case unavailableCoercionError = -1200

        public var description: String {
            switch self {
            case .unknownError: "unknownError"
            case .itemUnavailableError: "itemUnavailableError"
            case .unexpectedValueClassError: "unexpectedValueClassError"
            case .unavailableCoercionError: "unavailableCoercionError"
            }
        }
    }
}

/// Why an ``NSItemProvider`` could not load what was asked of it.
///
/// Bridges to an `NSError` in ``NSItemProvider/errorDomain`` with Apple's codes, so code
/// that checks `(error as NSError).code` keeps working. Its message names the type that
/// was asked for, the types the provider has, and what to do.
///
/// Errors that a provider's own load handler reports are passed on unchanged, not wrapped.
public struct NSItemProviderError: Error, CustomNSError, CustomStringConvertible {
    /// What kind of failure this is.
    public let code: NSItemProvider.ErrorCode
    /// The type identifier that was asked for.
    public let typeIdentifier: String
    /// The provider's registered type identifiers when the load was asked for, in order.
    public let registeredTypeIdentifiers: [String]
    /// What went wrong and what to do, as a sentence fragment.
    public let reason: String
    /// The error behind this one, such as the file-system error of a failed copy.
    public let underlyingError: (any Error)?

    public init(
        _ code: NSItemProvider.ErrorCode,
        typeIdentifier: String,
        registeredTypeIdentifiers: [String],
        reason: String,
        underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.typeIdentifier = typeIdentifier
        self.registeredTypeIdentifiers = registeredTypeIdentifiers
        self.reason = reason
        self.underlyingError = underlyingError
    }

    public static var errorDomain: String { NSItemProvider.errorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }

    public var description: String {
        let registered = registeredTypeIdentifiers.isEmpty ? "none" : registeredTypeIdentifiers.joined(separator: ", ")
        var text = "cannot load \(typeIdentifier) (\(code)): \(reason) [registered types: \(registered)]"
        if let underlyingError { text += "; underlying error: \(underlyingError)" }
        return text
    }
}
