/// The dictionary form of `NSExtensionActivationRule`: counts of the kinds of attachment an
/// extension accepts, such as `NSExtensionActivationSupportsImageWithMaxCount = 10`.
///
/// Values are read as Apple reads them, with `integerValue` and `boolValue`, so a string
/// `"1"` counts as 1 (``ActivationRuleLint`` warns about it). Unknown keys are kept in
/// ``source`` and ignored by evaluation. See docs/activation-rules.md for the exact rules.
public struct ActivationDictionary: Sendable, Hashable {
    /// The documented keys of the dictionary form.
    public enum Key: String, Sendable, CaseIterable {
        case attachmentsMaxCount = "NSExtensionActivationSupportsAttachmentsWithMaxCount"
        case attachmentsMinCount = "NSExtensionActivationSupportsAttachmentsWithMinCount"
        case fileMaxCount = "NSExtensionActivationSupportsFileWithMaxCount"
        case imageMaxCount = "NSExtensionActivationSupportsImageWithMaxCount"
        case movieMaxCount = "NSExtensionActivationSupportsMovieWithMaxCount"
        case text = "NSExtensionActivationSupportsText"
        case webURLMaxCount = "NSExtensionActivationSupportsWebURLWithMaxCount"
        case webPageMaxCount = "NSExtensionActivationSupportsWebPageWithMaxCount"
        case usesStrictMatching = "NSExtensionActivationUsesStrictMatching"
        case dictionaryVersion = "NSExtensionActivationDictionaryVersion"
        /// Used by Broadcast Upload extensions (ReplayKit); not an item kind, ignored in matching.
        case replayKitStreaming = "NSExtensionActivationSupportsReplayKitStreaming"
    }

    /// The most attachments of any kind; 0 when absent. When above 0, an attachment of a kind
    /// the rule does not name is accepted too.
    public var attachmentsMaxCount: Int
    /// The fewest attachments; 0 when absent.
    public var attachmentsMinCount: Int
    /// The most files: attachments that are file URLs or data (not web URLs).
    public var fileMaxCount: Int
    /// The most images: attachments conforming to `public.image`.
    public var imageMaxCount: Int
    /// The most movies: attachments conforming to `public.movie`.
    public var movieMaxCount: Int
    /// Whether text is accepted: content text, or attachments conforming to `public.text`.
    public var supportsText: Bool
    /// The most web URLs: attachments conforming to `public.url` but not `public.file-url`.
    public var webURLMaxCount: Int
    /// The most web pages: attachments conforming to `com.apple.property-list` (Safari's
    /// JavaScript-preprocessing result) that are not file URLs.
    public var webPageMaxCount: Int
    /// Whether only each attachment's first (preferred) type identifier decides its kind.
    public var usesStrictMatching: Bool
    /// `NSExtensionActivationDictionaryVersion`, 1 when absent. Versions 1 and 2 evaluate alike.
    public var dictionaryVersion: Int
    /// The dictionary as written, unknown keys included.
    public var source: [String: PropertyListValue]

    /// Reads a dictionary rule.
    ///
    /// - Throws: ``ActivationRuleError`` with code `invalidValue` when a known key holds an
    ///   array, dictionary, date or data, which cannot be read as a number or Boolean.
    public init(_ dictionary: [String: PropertyListValue]) throws(ActivationRuleError) {
        func count(_ key: Key) throws(ActivationRuleError) -> Int {
            guard let value = dictionary[key.rawValue] else { return 0 }
            guard let number = Self.integerValue(value) else {
                throw ActivationRuleError(
                    .invalidValue, "holds \(value.kindName == "array" ? "an" : "a") \(value.kindName), which is not a count",
                    hint: "write an <integer>, such as <integer>1</integer>", key: key.rawValue)
            }
            return max(number, 0)
        }
        func flag(_ key: Key) throws(ActivationRuleError) -> Bool {
            guard let value = dictionary[key.rawValue] else { return false }
            guard let flag = Self.booleanValue(value) else {
                throw ActivationRuleError(
                    .invalidValue, "holds \(value.kindName == "array" ? "an" : "a") \(value.kindName), which is not a Boolean",
                    hint: "write <true/> or <false/>", key: key.rawValue)
            }
            return flag
        }
        attachmentsMaxCount = try count(.attachmentsMaxCount)
        attachmentsMinCount = try count(.attachmentsMinCount)
        fileMaxCount = try count(.fileMaxCount)
        imageMaxCount = try count(.imageMaxCount)
        movieMaxCount = try count(.movieMaxCount)
        supportsText = try flag(.text)
        webURLMaxCount = try count(.webURLMaxCount)
        webPageMaxCount = try count(.webPageMaxCount)
        usesStrictMatching = try flag(.usesStrictMatching)
        _ = try flag(.replayKitStreaming)
        dictionaryVersion = dictionary[Key.dictionaryVersion.rawValue] == nil ? 1 : try count(.dictionaryVersion)
        source = dictionary
    }

    /// The maximum for one kind; 0 means the kind is not supported.
    func maximum(for kind: AttachmentKinds) -> Int {
        switch kind {
        case .webPage: webPageMaxCount
        case .webURL: webURLMaxCount
        case .image: imageMaxCount
        case .movie: movieMaxCount
        case .file: fileMaxCount
        case .text: supportsText ? Int.max : 0
        default: 0
        }
    }

    /// Whether the items match; see docs/activation-rules.md for the steps.
    public func matches(_ context: ActivationContext) -> Bool {
        let total = context.attachmentCount
        if total == 0 { return supportsText && context.hasContentText }
        if total < attachmentsMinCount { return false }
        if attachmentsMaxCount > 0 && total > attachmentsMaxCount { return false }
        var counts = (webPage: 0, webURL: 0, image: 0, movie: 0, file: 0)
        for group in usesStrictMatching ? context.strictKinds : context.fuzzyKinds {
            guard let kind = AttachmentKinds.priority.first(where: { group.kinds.contains($0) && maximum(for: $0) > 0 }) else {
                if attachmentsMaxCount > 0 { continue }
                return false
            }
            switch kind {
            case .webPage: counts.webPage += group.count
            case .webURL: counts.webURL += group.count
            case .image: counts.image += group.count
            case .movie: counts.movie += group.count
            case .file: counts.file += group.count
            default: break
            }
        }
        return counts.webPage <= webPageMaxCount && counts.webURL <= webURLMaxCount
            && counts.image <= imageMaxCount && counts.movie <= movieMaxCount && counts.file <= fileMaxCount
    }

    /// A value read as `-[NSNumber integerValue]` or `-[NSString integerValue]` reads it:
    /// leading white space, an optional sign, then digits; anything else reads as 0.
    static func integerValue(_ value: PropertyListValue) -> Int? {
        switch value {
        case .integer(let number): return number
        case .real(let number): return number.isFinite ? Int(max(min(number, 1e15), -1e15)) : 0
        case .boolean(let flag): return flag ? 1 : 0
        case .string(let text):
            var scalars = Substring(text).unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            var sign = 1
            if let first = scalars.first, first == "-" || first == "+" {
                sign = first == "-" ? -1 : 1
                scalars = scalars.dropFirst()
            }
            var number = 0
            for scalar in scalars {
                guard let digit = Int(String(scalar)), scalar.isASCII else { break }
                let (next, overflow) = number.multipliedReportingOverflow(by: 10)
                if overflow { return sign * Int.max }
                number = next + digit
            }
            return sign * number
        default:
            return nil
        }
    }

    /// A value read as `boolValue` reads it. For strings: after white space, an optional sign and
    /// leading zeros, `Y`, `y`, `T`, `t` or a digit 1–9 is true; anything else false.
    static func booleanValue(_ value: PropertyListValue) -> Bool? {
        switch value {
        case .boolean(let flag): return flag
        case .integer(let number): return number != 0
        case .real(let number): return number != 0
        case .string(let text):
            var scalars = Substring(text).unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            if let first = scalars.first, first == "-" || first == "+" { scalars = scalars.dropFirst() }
            scalars = scalars.drop { $0 == "0" }
            guard let first = scalars.first else { return false }
            return "YyTt123456789".unicodeScalars.contains(first)
        default:
            return nil
        }
    }
}
