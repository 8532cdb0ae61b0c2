public import Foundation

/// How the host shows a widget: its mode, the room each mode gives, and the margins it
/// proposes. The body of ``WidgetMessage/present(_:)``.
public struct WidgetPresentation: Codable, Sendable, Hashable {
    /// The mode the user last chose for this widget.
    public var mode: NCWidgetDisplayMode
    /// The width every mode has, in points.
    public var width: Double
    /// The margins the host proposes, in points (`widgetMarginInsets(forProposedMarginInsets:)`).
    public var margins: WidgetMargins

    public init(mode: NCWidgetDisplayMode, width: Double, margins: WidgetMargins = .proposed) {
        self.mode = mode
        self.width = width
        self.margins = margins
    }

    /// The largest size of `mode`: Apple's heights, this host's width.
    public func maximumSize(for mode: NCWidgetDisplayMode) -> CGSize {
        CGSize(width: width, height: mode == .compact ? NCWidgetDisplayMode.compactHeight : NCWidgetDisplayMode.expandedHeights.upperBound)
    }
}

/// A widget's margins, in points.
public struct WidgetMargins: Codable, Sendable, Hashable {
    public var top, left, bottom, right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right)
    }

    /// What a host proposes: 16 points each side, none above or below, as iOS does.
    public static let proposed = WidgetMargins(top: 0, left: 16, bottom: 0, right: 16)

    /// The margins as Foundation's insets.
    public var insets: NSEdgeInsets { NSEdgeInsets(top: top, left: left, bottom: bottom, right: right) }

    /// Margins from Foundation's insets; those that aren't numbers, or are negative, are 0.
    public init(_ insets: NSEdgeInsets) {
        func points(_ value: CGFloat) -> Double { value.isFinite ? max(0, Double(value)) : 0 }
        self.init(top: points(insets.top), left: points(insets.left), bottom: points(insets.bottom), right: points(insets.right))
    }
}

/// What a widget shows, and how: the body of ``WidgetMessage/content(_:)``.
public struct WidgetContent: Codable, Sendable, Hashable {
    /// The view to draw.
    public var view: WidgetView
    /// The height the widget asks for in expanded mode, in points (`preferredContentSize`).
    public var preferredHeight: Double
    /// The largest mode the widget supports: compact-only widgets can't be expanded.
    public var largestMode: NCWidgetDisplayMode
    /// Whether the widget has an edit mode (`widgetAllowsEditing`).
    public var allowsEditing: Bool
    /// The margins the widget chose.
    public var margins: WidgetMargins

    public init(view: WidgetView, preferredHeight: Double = NCWidgetDisplayMode.compactHeight, largestMode: NCWidgetDisplayMode = .compact,
                allowsEditing: Bool = false, margins: WidgetMargins = .proposed) {
        self.view = view
        self.preferredHeight = preferredHeight
        self.largestMode = largestMode
        self.allowsEditing = allowsEditing
        self.margins = margins
    }

    /// What makes the content unfit to draw; nil if it can be drawn.
    public var problem: String? {
        guard preferredHeight.isFinite, preferredHeight >= 0 else { return "its preferred height is \(preferredHeight), not a height in points" }
        for (side, value) in [("top", margins.top), ("left", margins.left), ("bottom", margins.bottom), ("right", margins.right)]
        where !value.isFinite || !(0...200).contains(value) {
            return "its \(side) margin is \(value), outside 0…200 points"
        }
        return view.problem
    }

    /// The height drawn in `mode`, in points: compact's, or the preferred height within
    /// expanded's bounds.
    public func height(in mode: NCWidgetDisplayMode) -> Double {
        switch mode {
        case .compact: NCWidgetDisplayMode.compactHeight
        case .expanded: min(max(preferredHeight, NCWidgetDisplayMode.expandedHeights.lowerBound), NCWidgetDisplayMode.expandedHeights.upperBound)
        }
    }
}
