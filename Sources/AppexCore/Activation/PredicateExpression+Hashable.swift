// Structural equality of compiled predicates (the enums synthesize theirs), so that a rule
// set can find the comparisons many rules share (`ActivationRuleSet`). Two parts are equal
// when they evaluate alike: where they sit in the rule's text and what was prepared from
// their constants do not count.

extension ComparisonNode {
    static func == (lhs: ComparisonNode, rhs: ComparisonNode) -> Bool {
        lhs === rhs
            || (lhs.modifier == rhs.modifier && lhs.operation == rhs.operation && lhs.options == rhs.options
                && lhs.left == rhs.left && lhs.right == rhs.right)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(modifier)
        hasher.combine(operation)
        hasher.combine(options)
        hasher.combine(left)
        hasher.combine(right)
    }
}

extension SubqueryNode {
    static func == (lhs: SubqueryNode, rhs: SubqueryNode) -> Bool {
        lhs === rhs
            || (lhs.slot == rhs.slot && lhs.variable == rhs.variable && lhs.collection == rhs.collection
                && lhs.predicate == rhs.predicate)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(slot)
        hasher.combine(variable)
        hasher.combine(collection)
        hasher.combine(predicate)
    }
}
