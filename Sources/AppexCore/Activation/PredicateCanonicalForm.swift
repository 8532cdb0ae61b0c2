/// A comparison at the top of a rule rewritten so that copies of it in different rules are
/// equal (``ActivationRuleSet`` shares them): each SUBQUERY's variable gets the slot of its
/// depth and no name. `$item` in one rule and `$extensionItem` in another, or a comparison
/// that came after another SUBQUERY in its rule, then read the same slots.
///
/// Sibling SUBQUERYs share a slot safely: a variable is read only inside its own SUBQUERY,
/// which has finished with the slot before the next one binds it. The names only ever served
/// diagnostics, which are made from the rule as parsed.
///
/// Its *shape* is the same with the type constants of its UTI comparisons blanked: comparisons
/// of one shape differ only in the types they test for, such as Apple's SUBQUERY for
/// `public.image` and for `public.movie`. Each such constant is numbered (``ComparisonNode/typeParameter``)
/// so that evaluation can record what was tested against it (``TypeTestRecorder``).
struct PredicateCanonicalForm {
    /// The canonical comparison, its type constants numbered in order.
    var node: PredicateNode
    /// The comparison with its type constants blanked: equal for comparisons that differ only there.
    var shape: PredicateNode
    /// The slots it needs: its deepest nesting of SUBQUERYs.
    var slotCount: Int
    /// Its type constants, lower-cased, in the order they are numbered.
    var types: [String]

    init(_ comparison: ComparisonNode) {
        var rewriter = Rewriter(blankingTypes: false)
        node = .comparison(rewriter.rewrite(comparison, depth: 0))
        slotCount = rewriter.slotCount
        types = rewriter.types
        var blanking = Rewriter(blankingTypes: true)
        shape = .comparison(blanking.rewrite(comparison, depth: 0))
    }
}

private struct Rewriter {
    /// Whether type constants become empty strings, for the shape.
    let blankingTypes: Bool
    private(set) var slotCount = 0
    private(set) var types: [String] = []
    /// The canonical slot of each of the rule's slots in scope.
    private var slots: [Int: Int] = [:]

    init(blankingTypes: Bool) {
        self.blankingTypes = blankingTypes
    }

    mutating func rewrite(_ node: PredicateNode, depth: Int) -> PredicateNode {
        switch node {
        case .constant: node
        case .not(let inner): .not(rewrite(inner, depth: depth))
        case .and(let terms): .and(terms.map { rewrite($0, depth: depth) })
        case .or(let terms): .or(terms.map { rewrite($0, depth: depth) })
        case .comparison(let comparison): .comparison(rewrite(comparison, depth: depth))
        }
    }

    mutating func rewrite(_ node: ComparisonNode, depth: Int) -> ComparisonNode {
        let left = rewrite(node.left, depth: depth)
        var right = rewrite(node.right, depth: depth)
        var prepared = node.prepared
        var parameter: Int?
        if node.operation == .utiConformsTo || node.operation == .utiEquals, case .constant(.string) = node.right,
           case .folded(let type)? = node.prepared {
            // Lower-cased, as it is compared: "PUBLIC.IMAGE" and "public.image" are one test.
            parameter = types.count
            types.append(type)
            right = .constant(.string(blankingTypes ? "" : type))
            prepared = .folded(blankingTypes ? "" : type)
        }
        return ComparisonNode(modifier: node.modifier, operation: node.operation, options: node.options, left: left, right: right,
                              offset: node.offset, prepared: prepared, typeParameter: parameter)
    }

    private mutating func rewrite(_ node: ExpressionNode, depth: Int) -> ExpressionNode {
        switch node {
        case .constant, .evaluatedObject:
            return node
        case .variable(let slot, _):
            return .variable(slot: slots[slot] ?? slot, name: "")
        case .keyPath(let base, let components):
            return .keyPath(rewrite(base, depth: depth), components)
        case .aggregate(let elements):
            return .aggregate(elements.map { rewrite($0, depth: depth) })
        case .subquery(let subquery):
            return .subquery(rewrite(subquery, depth: depth))
        case .subqueryCount(let subquery):
            return .subqueryCount(rewrite(subquery, depth: depth))
        case .index(let base, let index):
            let rewritten: IndexKind
            if case .expression(let expression) = index { rewritten = .expression(rewrite(expression, depth: depth)) } else { rewritten = index }
            return .index(rewrite(base, depth: depth), rewritten)
        case .arithmetic(let symbol, let lhs, let rhs):
            return .arithmetic(symbol, rewrite(lhs, depth: depth), rewrite(rhs, depth: depth))
        case .negate(let operand):
            return .negate(rewrite(operand, depth: depth))
        }
    }

    private mutating func rewrite(_ node: SubqueryNode, depth: Int) -> SubqueryNode {
        // The collection is read in the enclosing scope; the predicate in the new one.
        let collection = rewrite(node.collection, depth: depth)
        let outer = slots[node.slot]
        slots[node.slot] = depth
        slotCount = max(slotCount, depth + 1)
        let predicate = rewrite(node.predicate, depth: depth + 1)
        slots[node.slot] = outer
        return SubqueryNode(collection: collection, slot: depth, variable: "", predicate: predicate)
    }
}
