/// What a Today widget shows: a small declarative description that the host draws. No
/// extension code runs in the host; the description crosses the wire as JSON.
///
/// ```swift
/// view = .vstack([
///     .hstack([.image(.note, label: "Note"), .text("Latest note", style: .headline), .spacer]),
///     .link("notes://latest", .text(note, color: .secondary)),
///     .progress(0.4, label: "Inbox"),
/// ])
/// ```
///
/// A host lays the view out in the widget's display mode and clips what doesn't fit. The
/// limits in ``WidgetView/Limits`` keep a description small enough to draw at once.
public indirect enum WidgetView: Sendable, Hashable {
    /// A line of text, wrapped to the width; `style` and `color` say how it looks.
    case text(String, style: TextStyle = .body, color: WidgetColor = .primary)
    /// Views one above the other (`.vertical`) or side by side (`.horizontal`), with
    /// `spacing` empty rows or columns between them.
    case stack(Axis, spacing: Int = 0, [WidgetView])
    /// Empty space that takes what the views beside it leave.
    case spacer
    /// A small picture from the system's set of symbols, with a label for whoever can't see it.
    case image(WidgetSymbol, label: String)
    /// A bar showing `fraction` (0…1) of something done or used.
    case progress(Double, label: String?)
    /// `content` that opens `url` when followed: the widget's context opens it.
    case link(String, WidgetView)
    /// A thin line across the widget.
    case divider

    /// The direction of a stack.
    public enum Axis: String, Sendable, Hashable, Codable {
        case vertical, horizontal
    }

    /// Views one above the other.
    public static func vstack(spacing: Int = 0, _ children: [WidgetView]) -> WidgetView { .stack(.vertical, spacing: spacing, children) }
    /// Views side by side.
    public static func hstack(spacing: Int = 1, _ children: [WidgetView]) -> WidgetView { .stack(.horizontal, spacing: spacing, children) }
}

/// How text looks, as Apple's text styles name it.
public enum TextStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// The widget's heading: bold.
    case title
    /// A row's heading: bold.
    case headline
    /// Ordinary text.
    case body
    /// Small print: dimmed.
    case caption
    /// A figure that changes, such as a time or a count: bold, in the accent colour.
    case monospacedDigits
}

/// A colour from the system's palette: a host maps each to what its display can show.
public enum WidgetColor: String, Sendable, Hashable, Codable, CaseIterable {
    case primary, secondary, accent, green, orange, red
}

/// The system's symbols a widget may show. A terminal host draws each as one character.
public enum WidgetSymbol: String, Sendable, Hashable, Codable, CaseIterable {
    case note, clock, gauge, photo, folder, star, sun, cloud, bolt, link, checkmark, warning
}
