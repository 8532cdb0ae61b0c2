import Foundation

extension WidgetView {
    /// The most a view description may hold. A widget is a glance: these are far above what
    /// one shows, and low enough that a host draws any description at once.
    public enum Limits {
        /// How deep views may nest.
        public static let depth = 12
        /// How many views a description may hold, nested ones included.
        public static let views = 256
        /// The longest text of one view, in characters.
        public static let textLength = 2000
        /// The longest label or URL, in characters.
        public static let labelLength = 2048
        /// The widest spacing of a stack.
        public static let spacing = 0...8
    }

    /// What makes the description unfit to draw, said so its author can fix it; nil if it
    /// keeps every limit.
    public var problem: String? {
        var count = 0
        return problem(at: "view", depth: 1, count: &count)
    }

    private func problem(at path: String, depth: Int, count: inout Int) -> String? {
        count += 1
        if count > Limits.views { return "the description holds more than \(Limits.views) views" }
        if depth > Limits.depth { return "\(path) nests more than \(Limits.depth) views deep" }
        switch self {
        case .text(let text, _, _):
            if text.count > Limits.textLength { return "\(path)'s text is \(text.count) characters long, over \(Limits.textLength)" }
        case .stack(_, let spacing, let children):
            if !Limits.spacing.contains(spacing) { return "\(path)'s spacing is \(spacing), outside \(Limits.spacing.lowerBound)…\(Limits.spacing.upperBound)" }
            for (index, child) in children.enumerated() {
                if let problem = child.problem(at: "\(path).children[\(index)]", depth: depth + 1, count: &count) { return problem }
            }
        case .spacer, .divider:
            break
        case .image(_, let label):
            if label.count > Limits.labelLength { return "\(path)'s label is over \(Limits.labelLength) characters" }
        case .progress(let value, let label):
            if !value.isFinite { return "\(path)'s value is \(value), not a number from 0 to 1" }
            if let label, label.count > Limits.labelLength { return "\(path)'s label is over \(Limits.labelLength) characters" }
        case .link(let url, let content):
            if url.count > Limits.labelLength { return "\(path)'s URL is over \(Limits.labelLength) characters" }
            guard let parsed = URL(string: url), let scheme = parsed.scheme, !scheme.isEmpty else {
                return "\(path)'s URL \"\(url.prefix(80))\" has no scheme, so nothing could open it"
            }
            return content.problem(at: "\(path).content", depth: depth + 1, count: &count)
        }
        return nil
    }

    /// The strings of the view's text views, in reading order, links' text among them: what
    /// a test of a widget reads.
    public var texts: [String] {
        switch self {
        case .text(let text, _, _): [text]
        case .link(_, let content): content.texts
        case .stack(_, _, let children): children.flatMap(\.texts)
        case .spacer, .image, .progress, .divider: []
        }
    }

    /// The URLs of the view's links, in reading order: the host numbers them so a person can
    /// follow one.
    public var links: [String] {
        switch self {
        case .link(let url, let content): [url] + content.links
        case .stack(_, _, let children): children.flatMap(\.links)
        case .text, .spacer, .image, .progress, .divider: []
        }
    }
}
