import Foundation

extension PredicateEvaluator {
    /// Applies one comparison to one left value (an element, under ANY/ALL/NONE) and the right value.
    func test(_ node: ComparisonNode, _ left: PredicateValue, _ right: PredicateValue, frame: inout PredicateFrame) -> Bool {
        switch node.operation {
        case .equal:
            return equal(node, left, right)
        case .notEqual:
            return !equal(node, left, right)
        case .less:
            return left.compare(to: right) == .orderedAscending
        case .lessOrEqual:
            guard let order = left.compare(to: right) else { return false }
            return order != .orderedDescending
        case .greater:
            return left.compare(to: right) == .orderedDescending
        case .greaterOrEqual:
            guard let order = left.compare(to: right) else { return false }
            return order != .orderedAscending
        case .between:
            guard case .array(let bounds) = right, bounds.count == 2,
                let low = left.compare(to: bounds[0]), let high = left.compare(to: bounds[1])
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .in:
            if case .string(let haystack) = right, case .string(let needle) = left {
                return stringTest(node, haystack, needle, prepared: nil) { $0.contains($1) }
            }
            guard let elements = right.collectionElements else { return false }
            return elements.contains { equal(node, left, $0, usePrepared: false) }
        case .contains:
            if case .string(let haystack) = left, case .string(let needle) = right {
                return stringTest(node, haystack, needle, prepared: node.prepared) { $0.contains($1) }
            }
            guard let elements = left.collectionElements else { return false }
            return elements.contains { equal(node, $0, right) }
        case .beginsWith:
            guard case .string(let text) = left, case .string(let prefix) = right else { return false }
            return stringTest(node, text, prefix, prepared: node.prepared) { $0.hasPrefix($1) }
        case .endsWith:
            guard case .string(let text) = left, case .string(let suffix) = right else { return false }
            return stringTest(node, text, suffix, prepared: node.prepared) { $0.hasSuffix($1) }
        case .like:
            guard case .string(let text) = left, case .string(let pattern) = right else { return false }
            let elements: [LikeElement]
            if case .like(let compiled) = node.prepared {
                elements = compiled
            } else {
                elements = PredicateStringMatching.likePattern(PredicateStringMatching.fold(pattern, node.options))
            }
            return PredicateStringMatching.like(PredicateStringMatching.fold(text, node.options), elements)
        case .matches:
            guard case .string(let text) = left, case .string(let pattern) = right else { return false }
            let regex: LinearRegex
            if case .regex(let compiled) = node.prepared {
                regex = compiled
            } else {
                guard let compiled = try? PredicateStringMatching.regex(pattern, node.options) else { return false }
                regex = compiled
            }
            return frame.spending { PredicateStringMatching.matches(text, regex, node.options, steps: &$0) }
        case .utiConformsTo:
            guard case .string(let type) = left, case .string(let other) = right else { return false }
            guard case .folded(let target) = node.prepared else { return context.conforms(type, toLowercased: other.lowercased()) }
            let result = context.conforms(type, toLowercased: target)
            if let parameter = node.typeParameter { recorder?.record(TypeTest(parameter: parameter, type: type, conformance: true, result: result)) }
            return result
        case .utiEquals:
            guard case .string(let type) = left, case .string(let other) = right else { return false }
            guard case .folded(let target) = node.prepared else { return type.lowercased() == other.lowercased() }
            let lowercased = type.lowercased()
            let result = lowercased == target
            if let parameter = node.typeParameter { recorder?.record(TypeTest(parameter: parameter, type: lowercased, conformance: false, result: result)) }
            return result
        }
    }

    private func equal(_ node: ComparisonNode, _ left: PredicateValue, _ right: PredicateValue, usePrepared: Bool = true) -> Bool {
        if !node.options.compareOptions.isEmpty, case .string(let a) = left, case .string(let b) = right {
            let folded: String
            if usePrepared, case .folded(let prepared) = node.prepared { folded = prepared } else { folded = PredicateStringMatching.fold(b, node.options) }
            return PredicateStringMatching.fold(a, node.options) == folded
        }
        return left.isEqual(to: right)
    }

    private func stringTest(
        _ node: ComparisonNode, _ text: String, _ other: String, prepared: PreparedPattern?,
        _ predicate: (String, String) -> Bool
    ) -> Bool {
        if node.options.compareOptions.isEmpty {
            if other.isEmpty { return false }
            return predicate(text, other)
        }
        let folded: String
        if case .folded(let value) = prepared { folded = value } else { folded = PredicateStringMatching.fold(other, node.options) }
        if folded.isEmpty { return false }
        return predicate(PredicateStringMatching.fold(text, node.options), folded)
    }
}
