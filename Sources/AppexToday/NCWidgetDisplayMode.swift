/// How much room a widget has in the Today view, as Apple's `NCWidgetDisplayMode`.
///
/// Sizes are in points, as on Apple's systems: ``compact`` is 110 high; ``expanded`` is as
/// high as the widget's `preferredContentSize` asks, from 110 to 616. A widget that asks for
/// more is clipped, and its log says so.
public enum NCWidgetDisplayMode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The fixed height every widget starts with.
    case compact = 0
    /// A height the widget chooses, which the user asks for with "Show More".
    case expanded = 1

    /// The height of compact, in points.
    public static let compactHeight: Double = 110
    /// The most an expanded widget may be, in points.
    public static let expandedHeights: ClosedRange<Double> = 110...616

    public var description: String {
        switch self {
        case .compact: "compact"
        case .expanded: "expanded"
        }
    }

    /// The mode a host's JSON names.
    public init?(name: String) {
        guard let mode = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = mode
    }
}

/// In JSON, a mode is its name: `"compact"` or `"expanded"`.
extension NCWidgetDisplayMode: Codable {
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let mode = Self(name: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\"\(name)\" is not a display mode"))
        }
        self = mode
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// What a widget's update found, as Apple's `NCUpdateResult`; the Today view keeps or
/// replaces its snapshot by it.
public enum NCUpdateResult: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The content changed: the snapshot is replaced.
    case newData = 0
    /// Nothing changed: the snapshot stays.
    case noData = 1
    /// The update failed: the snapshot stays, marked stale.
    case failed = 2

    public var description: String {
        switch self {
        case .newData: "newData"
        case .noData: "noData"
        case .failed: "failed"
        }
    }

    /// The result a host's JSON names.
    public init?(name: String) {
        guard let result = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = result
    }
}
