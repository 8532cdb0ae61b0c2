/// How an ``NSItemProvider`` hands over a file representation, as Apple's type of the same name says.
public struct NSItemProviderFileOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The consumer may open the provider's file in place instead of receiving a copy.
    ///
    /// Load it with ``NSItemProvider/loadInPlaceFileRepresentation(forTypeIdentifier:completionHandler:)``.
    public static let openInPlace = NSItemProviderFileOptions(rawValue: 1)
}
