/// Many activation rules evaluated against the same items at once, as a share sheet's query
/// does: each distinct comparison at the top of a predicate is evaluated once per query, however
/// many rules hold it, and comparisons that differ only in the types they test for are mostly
/// answered by one walk of the items.
///
/// Real rules repeat whole comparisons: the SUBQUERY of Apple's documentation, a test ORed into
/// several rules, a rule copied and given one more condition. Each rule becomes a formula of
/// ANDs, ORs and NOTs over shared comparisons, and each comparison's result is kept for the
/// rest of the query. Comparisons of one shape (the SUBQUERY for `public.image` and the one for
/// `public.movie`) take the same path through the items whenever each type test on the way
/// answers the same: the first is evaluated, recording its tests of the items' types against
/// its constants (``TypeTestRecorder``), and another whose constants answer those tests alike
/// takes its answer without walking the items.
///
/// The answers are exactly those of ``ActivationRule/matches(_:)`` for each rule, step budget
/// included: a rule whose evaluation would run out of steps is false here too.
///
/// ```swift
/// let set = ActivationRuleSet(rules)
/// let accepted = set.matches(ActivationContext(items: items, types: graph))  // one Bool per rule
/// ```
public struct ActivationRuleSet: Sendable {
    /// The rules, in the order given.
    public let rules: [ActivationRule]
    private let plans: [Plan]
    private let dictionaries: [ActivationDictionary]
    /// The predicates' formulas, every node of every formula in one flat array.
    private let formulas: Formulas
    /// The distinct comparisons at the tops of the predicates, in canonical form.
    private let comparisons: [PredicateCanonicalForm]
    /// The shape of each comparison, by index among the distinct shapes.
    private let shapes: [Int]
    /// How many comparisons each shape has: one alone has no path worth recording.
    private let shapeSizes: [Int]

    /// Compiles `rules` into one set, finding the comparisons they share.
    public init(_ rules: [ActivationRule]) {
        var builder = Builder()
        var dictionaries: [ActivationDictionary] = []
        plans = rules.map { rule in
            switch rule {
            case .dictionary(let dictionary):
                dictionaries.append(dictionary)
                return .dictionary(dictionaries.count - 1)
            case .predicate(let predicate):
                return .formula(builder.formula(predicate.root))
            }
        }
        self.rules = rules
        self.dictionaries = dictionaries
        formulas = builder.formulas
        comparisons = builder.comparisons
        var shapeIndices: [PredicateNode: Int] = [:]
        shapes = builder.comparisons.map { comparison in
            if let index = shapeIndices[comparison.shape] { return index }
            shapeIndices[comparison.shape] = shapeIndices.count
            return shapeIndices.count - 1
        }
        var shapeSizes = Array(repeating: 0, count: shapeIndices.count)
        for shape in shapes { shapeSizes[shape] += 1 }
        self.shapeSizes = shapeSizes
    }

    /// How many distinct comparisons the predicates hold between them.
    public var distinctComparisonCount: Int { comparisons.count }

    /// How many shapes those comparisons have: comparisons of one shape differ only in the
    /// types they test for.
    public var comparisonShapeCount: Int { shapeSizes.count }

    /// Whether each rule accepts the items described by `context`, in the rules' order.
    public func matches(_ context: ActivationContext) -> [Bool] {
        var outcomes = Outcomes(comparisons: comparisons.count, shapes: shapeSizes.count)
        var results: [Bool] = []
        results.reserveCapacity(plans.count)
        for plan in plans {
            switch plan {
            case .dictionary(let index):
                results.append(dictionaries[index].matches(context))
            case .formula(let root):
                var steps = PredicateEvaluator.stepBudget
                let result = evaluate(root, steps: &steps, outcomes: &outcomes, context: context)
                results.append(result && steps > 0)
            }
        }
        return results
    }

    /// Walks a rule's formula as ``PredicateEvaluator`` walks its tree, spending the same steps:
    /// one for each AND, OR, NOT and constant, and what each comparison took when it was evaluated.
    private func evaluate(_ index: Int, steps: inout Int, outcomes: inout Outcomes, context: ActivationContext) -> Bool {
        guard steps > 0 else { return false }
        let node = formulas.nodes[index]
        switch node.kind {
        case .comparison:
            let comparison = Int(node.first)
            let outcome = outcomes.known[comparison] ?? evaluate(comparison: comparison, outcomes: &outcomes, context: context)
            guard outcome.steps < steps else {
                steps = 0
                return false
            }
            steps -= outcome.steps
            return outcome.result
        case .constant:
            steps -= 1
            return node.first != 0
        case .not:
            steps -= 1
            return !evaluate(Int(formulas.children[Int(node.first)]), steps: &steps, outcomes: &outcomes, context: context)
        case .and:
            steps -= 1
            for position in Int(node.first)..<Int(node.first + node.count)
            where !evaluate(Int(formulas.children[position]), steps: &steps, outcomes: &outcomes, context: context) {
                return false
            }
            return true
        case .or:
            steps -= 1
            for position in Int(node.first)..<Int(node.first + node.count)
            where evaluate(Int(formulas.children[position]), steps: &steps, outcomes: &outcomes, context: context) {
                return true
            }
            return false
        }
    }

    /// A comparison's answer: taken from an earlier one of its shape whose recorded type tests
    /// its own types answer alike, or else evaluated, and its tests recorded for the next.
    private func evaluate(comparison index: Int, outcomes: inout Outcomes, context: ActivationContext) -> Outcome {
        let comparison = comparisons[index]
        let shape = shapes[index]
        if outcomes.misses[shape] < Outcomes.missesAllowed {
            for path in outcomes.paths[shape] where path.tests.allSatisfy({ $0.holds(for: comparison.types, in: context) }) {
                outcomes.known[index] = path.outcome
                return path.outcome
            }
            if outcomes.paths[shape].count >= Outcomes.pathsKept { outcomes.misses[shape] += 1 }
        }
        let recording = shapeSizes[shape] > 1 && outcomes.paths[shape].count < Outcomes.pathsKept
        let recorder = recording ? TypeTestRecorder() : nil
        let evaluated = PredicateEvaluator(context: context, recorder: recorder)
            .evaluateCountingSteps(comparison.node, object: context.root, slotCount: comparison.slotCount)
        let outcome = Outcome(result: evaluated.result, steps: evaluated.steps)
        outcomes.known[index] = outcome
        if let recorder, !recorder.overflowed { outcomes.paths[shape].append(Path(tests: recorder.tests, outcome: outcome)) }
        return outcome
    }

    /// How one rule is evaluated: by its index among the dictionaries, or by its formula's
    /// root node, so that reading a plan copies no rule.
    private enum Plan: Sendable {
        case dictionary(Int)
        case formula(Int)
    }

    /// The predicates' boolean structure, their comparisons replaced by their index among the
    /// shared ones: plain numbers in two arrays, so that walking it retains nothing.
    private struct Formulas: Sendable {
        enum Kind: UInt8, Sendable {
            case constant, not, and, or, comparison
        }

        /// A constant's `first` is 1 for true; a comparison's is its index; the others' children
        /// are `children[first..<first + count]` (one, for NOT).
        struct Node: Sendable {
            var kind: Kind
            var first: Int32
            var count: Int32
        }

        var nodes: [Node] = []
        var children: [Int32] = []
    }

    /// A shared comparison's result in this query, and the steps it took.
    private struct Outcome {
        var result: Bool
        var steps: Int
    }

    /// One path a shape's comparisons took through the items: the type tests that decided it,
    /// and where it led.
    private struct Path {
        var tests: [TypeTest]
        var outcome: Outcome
    }

    /// What one query has learnt.
    private struct Outcomes {
        /// The most paths kept for one shape; a comparison that follows none of them past
        /// that is evaluated alone.
        static let pathsKept = 8
        /// How many comparisons may follow none of a shape's full set of paths before the
        /// shape's paths are no longer checked. Checking a path costs at most the type tests of
        /// the evaluation that recorded it, so without this, items and rules made so that no
        /// path is ever followed would cost each comparison eight evaluations' worth of tests
        /// on top of its own.
        static let missesAllowed = 16

        /// Each comparison's outcome, once known.
        var known: [Outcome?]
        /// Each shape's paths.
        var paths: [[Path]]
        /// Each shape's comparisons that followed none of its full set of paths.
        var misses: [Int]

        init(comparisons: Int, shapes: Int) {
            known = Array(repeating: nil, count: comparisons)
            paths = Array(repeating: [], count: shapes)
            misses = Array(repeating: 0, count: shapes)
        }
    }

    /// Gathers the distinct comparisons while it turns predicates into formulas.
    private struct Builder {
        var formulas = Formulas()
        var comparisons: [PredicateCanonicalForm] = []
        var indices: [PredicateNode: Int] = [:]

        /// Adds `node`'s formula, and returns the index of its root.
        mutating func formula(_ node: PredicateNode) -> Int {
            switch node {
            case .constant(let value): return add(.constant, first: value ? 1 : 0)
            case .not(let inner): return add(.not, [formula(inner)])
            case .and(let terms): return add(.and, terms.map { formula($0) })
            case .or(let terms): return add(.or, terms.map { formula($0) })
            case .comparison(let comparison):
                let canonical = PredicateCanonicalForm(comparison)
                if let index = indices[canonical.node] { return add(.comparison, first: index) }
                indices[canonical.node] = comparisons.count
                comparisons.append(canonical)
                return add(.comparison, first: comparisons.count - 1)
            }
        }

        private mutating func add(_ kind: Formulas.Kind, first: Int) -> Int {
            formulas.nodes.append(Formulas.Node(kind: kind, first: Int32(first), count: 0))
            return formulas.nodes.count - 1
        }

        private mutating func add(_ kind: Formulas.Kind, _ children: [Int]) -> Int {
            formulas.nodes.append(Formulas.Node(kind: kind, first: Int32(formulas.children.count), count: Int32(children.count)))
            formulas.children += children.map { Int32($0) }
            return formulas.nodes.count - 1
        }
    }
}
