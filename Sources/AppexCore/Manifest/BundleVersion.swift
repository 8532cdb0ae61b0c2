/// A `CFBundleVersion` such as `1.2.10`, compared component by component as numbers,
/// so `1.10` is newer than `1.9`. Missing components count as 0; text compares as text.
public struct BundleVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let description: String
    private let components: [Component]

    private enum Component: Hashable, Comparable {
        case number(Int)
        case text(String)
    }

    public init(_ text: String) {
        description = text
        components = text.split(separator: ".").map { Int($0).map(Component.number) ?? .text(String($0)) }
    }

    public static func < (lhs: BundleVersion, rhs: BundleVersion) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : .number(0)
            let right = index < rhs.components.count ? rhs.components[index] : .number(0)
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: BundleVersion, rhs: BundleVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    public func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.last == .number(0) { trimmed.removeLast() }
        hasher.combine(trimmed)
    }
}
