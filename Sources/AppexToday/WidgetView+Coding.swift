import Foundation

/// The JSON form of a view, as docs/extension-points.md specifies: an object whose `type`
/// names the case.
///
/// ```json
/// {"type": "stack", "axis": "vertical", "spacing": 0, "children": [
///     {"type": "text", "text": "Latest note", "style": "headline"},
///     {"type": "link", "url": "notes://latest", "content": {"type": "text", "text": "Buy milk"}}
/// ]}
/// ```
extension WidgetView: Codable {
    private enum Kind: String, Codable {
        case text, stack, spacer, image, progress, link, divider
    }

    private enum Key: String, CodingKey {
        case type, text, style, color, axis, spacing, children, symbol, label, value, url, content
    }

    public init(from decoder: any Decoder) throws {
        // Each level of nesting adds two keys to the path; refuse a deep description before
        // decoding further, so a hostile one can't exhaust the stack.
        guard decoder.codingPath.count <= 2 * Limits.depth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "views nest more than \(Limits.depth) deep"))
        }
        let container = try decoder.container(keyedBy: Key.self)
        switch try container.decode(Kind.self, forKey: .type) {
        case .text:
            self = .text(try container.decode(String.self, forKey: .text),
                         style: try container.decodeIfPresent(TextStyle.self, forKey: .style) ?? .body,
                         color: try container.decodeIfPresent(WidgetColor.self, forKey: .color) ?? .primary)
        case .stack:
            self = .stack(try container.decode(Axis.self, forKey: .axis), spacing: try container.decodeIfPresent(Int.self, forKey: .spacing) ?? 0,
                          try container.decode([WidgetView].self, forKey: .children))
        case .spacer:
            self = .spacer
        case .image:
            self = .image(try container.decode(WidgetSymbol.self, forKey: .symbol), label: try container.decode(String.self, forKey: .label))
        case .progress:
            self = .progress(try container.decode(Double.self, forKey: .value), label: try container.decodeIfPresent(String.self, forKey: .label))
        case .link:
            self = .link(try container.decode(String.self, forKey: .url), try container.decode(WidgetView.self, forKey: .content))
        case .divider:
            self = .divider
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .text(let text, let style, let color):
            try container.encode(Kind.text, forKey: .type)
            try container.encode(text, forKey: .text)
            if style != .body { try container.encode(style, forKey: .style) }
            if color != .primary { try container.encode(color, forKey: .color) }
        case .stack(let axis, let spacing, let children):
            try container.encode(Kind.stack, forKey: .type)
            try container.encode(axis, forKey: .axis)
            if spacing != 0 { try container.encode(spacing, forKey: .spacing) }
            try container.encode(children, forKey: .children)
        case .spacer:
            try container.encode(Kind.spacer, forKey: .type)
        case .image(let symbol, let label):
            try container.encode(Kind.image, forKey: .type)
            try container.encode(symbol, forKey: .symbol)
            try container.encode(label, forKey: .label)
        case .progress(let value, let label):
            try container.encode(Kind.progress, forKey: .type)
            try container.encode(value, forKey: .value)
            try container.encodeIfPresent(label, forKey: .label)
        case .link(let url, let content):
            try container.encode(Kind.link, forKey: .type)
            try container.encode(url, forKey: .url)
            try container.encode(content, forKey: .content)
        case .divider:
            try container.encode(Kind.divider, forKey: .type)
        }
    }
}
