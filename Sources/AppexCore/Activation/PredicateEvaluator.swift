import Foundation

/// Walks a compiled predicate against an ``ActivationContext``.
///
/// Variables live in a frame of slots fixed at parse time. Run-time type mismatches (a number
/// compared with a string, `@sum` over strings) make the comparison false, where Foundation
/// would raise an exception; either way the extension is not offered.
///
/// Each evaluation has a budget of ``stepBudget`` steps: a rule's size is bounded when it is
/// parsed, but not its work, and SUBQUERYs nested in SUBQUERYs multiply it (twenty deep over
/// ten items is 10²⁰ steps, on the thread of appexd that answers a host's query). A rule that
/// runs out is false, and the extension is not offered.
struct PredicateEvaluator {
    /// The most steps one evaluation may take: each predicate, comparison and element of a
    /// collection tested is one. Real rules over a hundred items take a few thousand.
    static let stepBudget = 1_000_000

    /// One reference: copying the evaluator costs a single retain. Variables travel in an
    /// `inout` frame rather than in the evaluator, so nothing else is ever copied.
    let context: ActivationContext
    /// Where the tests of a canonical comparison's type constants go, when a rule set asks.
    let recorder: TypeTestRecorder?

    init(context: ActivationContext, recorder: TypeTestRecorder? = nil) {
        self.context = context
        self.recorder = recorder
    }

    /// Evaluates a whole rule with a fresh frame and budget: false if it runs out.
    func evaluate(_ node: PredicateNode, object: PredicateValue, slotCount: Int, budget: Int = stepBudget) -> Bool {
        var frame = PredicateFrame(slotCount: slotCount, steps: budget)
        let result = evaluate(node, object: object, frame: &frame)
        return result && frame.steps > 0
    }

    /// Evaluates a part of a rule with a fresh frame and the whole budget, and says how many
    /// steps it took: the whole budget when it ran out. The part must read no variable bound
    /// outside it; its result and its steps are then the same wherever in the rule it sits.
    func evaluateCountingSteps(_ node: PredicateNode, object: PredicateValue, slotCount: Int) -> (result: Bool, steps: Int) {
        var frame = PredicateFrame(slotCount: slotCount)
        let result = evaluate(node, object: object, frame: &frame)
        return (result && frame.steps > 0, Self.stepBudget - frame.steps)
    }

    func evaluate(_ node: PredicateNode, object: PredicateValue, frame: inout PredicateFrame) -> Bool {
        // Out of steps, every predicate is false, and the loops below stop at once.
        guard frame.spend() else { return false }
        switch node {
        case .constant(let value):
            return value
        case .not(let inner):
            return !evaluate(inner, object: object, frame: &frame)
        case .and(let terms):
            for term in terms where !evaluate(term, object: object, frame: &frame) { return false }
            return true
        case .or(let terms):
            for term in terms where evaluate(term, object: object, frame: &frame) { return true }
            return false
        case .comparison(let comparison):
            return evaluate(comparison, object: object, frame: &frame)
        }
    }

    private func evaluate(_ node: ComparisonNode, object: PredicateValue, frame: inout PredicateFrame) -> Bool {
        if let limit = node.countLimit, case .subqueryCount(let subquery) = node.left {
            let count = self.count(subquery, object: object, frame: &frame, upTo: limit)
            return test(node, .integer(count), value(of: node.right, object: object, frame: &frame), frame: &frame)
        }
        let left = value(of: node.left, object: object, frame: &frame)
        let right = value(of: node.right, object: object, frame: &frame)
        switch node.modifier {
        case .direct:
            return test(node, left, right, frame: &frame)
        case .any, .all, .none:
            let elements: [PredicateValue]
            if let collection = left.collectionElements {
                elements = collection
            } else if case .null = left {
                elements = []
            } else {
                elements = [left]
            }
            // Plain loops: closures here would copy the evaluator.
            switch node.modifier {
            case .any:
                for element in elements where frame.spend() && test(node, element, right, frame: &frame) { return true }
                return false
            case .all:
                for element in elements where !frame.spend() || !test(node, element, right, frame: &frame) { return false }
                return true
            default:
                for element in elements where !frame.spend() || test(node, element, right, frame: &frame) { return false }
                return true
            }
        }
    }

    // MARK: Expressions

    func value(of node: ExpressionNode, object: PredicateValue, frame: inout PredicateFrame) -> PredicateValue {
        switch node {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .variable(let slot, _):
            return frame[slot]
        case .keyPath(let base, let components):
            let baseValue = value(of: base, object: object, frame: &frame)
            // The common case, `$attachment.registeredTypeIdentifiers`: one key, no slice.
            if components.count == 1, case .key(let key, let known) = components[0] { return lookup(baseValue, key, known) }
            return resolve(baseValue, components[...])
        case .aggregate(let elements):
            return .array(elements.map { value(of: $0, object: object, frame: &frame) })
        case .subquery(let subquery):
            guard let elements = value(of: subquery.collection, object: object, frame: &frame).collectionElements else { return .array([]) }
            var kept: [PredicateValue] = []
            for element in elements {
                guard frame.spend() else { break }
                frame[subquery.slot] = element
                if evaluate(subquery.predicate, object: element, frame: &frame) { kept.append(element) }
            }
            return .array(kept)
        case .subqueryCount(let subquery):
            return .integer(count(subquery, object: object, frame: &frame, upTo: Int.max))
        case .index(let base, let index):
            return subscriptValue(value(of: base, object: object, frame: &frame), index, object: object, frame: &frame)
        case .arithmetic(let symbol, let lhs, let rhs):
            return arithmetic(symbol, value(of: lhs, object: object, frame: &frame), value(of: rhs, object: object, frame: &frame))
        case .negate(let operand):
            switch value(of: operand, object: object, frame: &frame) {
            case .integer(let number) where number != Int.min: return .integer(-number)
            case let other: return other.numericValue.map { .real(-$0) } ?? .null
            }
        }
    }

    /// How many elements of the SUBQUERY's collection satisfy its predicate, counting no
    /// further than `limit`.
    private func count(_ subquery: SubqueryNode, object: PredicateValue, frame: inout PredicateFrame, upTo limit: Int) -> Int {
        guard let elements = value(of: subquery.collection, object: object, frame: &frame).collectionElements else { return 0 }
        var count = 0
        for element in elements where count < limit {
            guard frame.spend() else { break }
            frame[subquery.slot] = element
            if evaluate(subquery.predicate, object: element, frame: &frame) { count += 1 }
        }
        return count
    }

    private func subscriptValue(_ base: PredicateValue, _ index: IndexKind, object: PredicateValue, frame: inout PredicateFrame) -> PredicateValue {
        switch index {
        case .first: return base.collectionElements?.first ?? .null
        case .last: return base.collectionElements?.last ?? .null
        case .size: return base.collectionElements.map { .integer($0.count) } ?? .null
        case .expression(let expression):
            let key = value(of: expression, object: object, frame: &frame)
            switch (base, key) {
            case (.array(let elements), .integer(let position)):
                return elements.indices.contains(position) ? elements[position] : .null
            case (.dictionary(let entries), .string(let name)):
                return entries[name] ?? .null
            case (.object(let object), .string(let name)):
                return ItemKey(rawValue: name).map { object.values[$0.index] } ?? .null
            default:
                return .null
            }
        }
    }

    private func arithmetic(_ symbol: String, _ lhs: PredicateValue, _ rhs: PredicateValue) -> PredicateValue {
        if case .integer(let a) = lhs, case .integer(let b) = rhs {
            switch symbol {
            case "+": let (r, o) = a.addingReportingOverflow(b); if !o { return .integer(r) }
            case "-": let (r, o) = a.subtractingReportingOverflow(b); if !o { return .integer(r) }
            case "*": let (r, o) = a.multipliedReportingOverflow(by: b); if !o { return .integer(r) }
            default: break
            }
        }
        guard let a = lhs.numericValue, let b = rhs.numericValue else { return .null }
        switch symbol {
        case "+": return .real(a + b)
        case "-": return .real(a - b)
        case "*": return .real(a * b)
        case "/": return b == 0 ? .null : .real(a / b)
        default: return .real(pow(a, b))
        }
    }

    /// Key-value coding: a key on a dictionary looks it up; on an array, maps over the elements.
    func resolve(_ base: PredicateValue, _ components: ArraySlice<KeyPathComponent>) -> PredicateValue {
        guard let component = components.first else { return base }
        let rest = components.dropFirst()
        switch component {
        case .key(let key, let known):
            return resolve(lookup(base, key, known), rest)
        case .collectionOperator(let op):
            return collectionOperator(op, base, rest)
        }
    }

    func lookup(_ base: PredicateValue, _ key: String, _ known: ItemKey?) -> PredicateValue {
        switch base {
        case .object(let object):
            return known.map { object.values[$0.index] } ?? .null
        case .dictionary(let entries):
            return entries[key] ?? .null
        case .array(let elements):
            return .array(elements.map { lookup($0, key, known) })
        case .string(let text):
            // An attributed string's `string` and `length`, so `attributedContentText.length > 0` ports.
            if key == "string" { return base }
            if key == "length" { return .integer(text.utf16.count) }
            return .null
        default:
            return .null
        }
    }

    private func collectionOperator(_ op: CollectionOperator, _ base: PredicateValue, _ rest: ArraySlice<KeyPathComponent>) -> PredicateValue {
        let elements: [PredicateValue]
        if let collection = base.collectionElements {
            elements = collection
        } else if case .null = base {
            elements = []
        } else {
            return .null
        }
        // The operator's right key path runs to the next collection operator, which then applies
        // to the result: `people.@unionOfObjects.age.@count` counts the ages.
        let split = rest.firstIndex { if case .collectionOperator = $0 { true } else { false } } ?? rest.endIndex
        // @count ignores its right key path, as key-value coding does.
        if op == .count { return resolve(.integer(elements.count), rest[split...]) }
        let right = rest[..<split]
        let values = right.isEmpty ? elements : elements.map { resolve($0, right) }
        return resolve(aggregate(op, values), rest[split...])
    }

    private func aggregate(_ op: CollectionOperator, _ values: [PredicateValue]) -> PredicateValue {
        switch op {
        case .count:
            return .integer(values.count)
        case .sum, .avg:
            var integerSum = 0
            var realSum = 0.0
            var allIntegers = true
            var counted = 0
            for value in values {
                if case .null = value { continue }
                guard let number = value.numericValue else { return .null }
                counted += 1
                realSum += number
                if case .integer(let integer) = value, allIntegers {
                    let (sum, overflow) = integerSum.addingReportingOverflow(integer)
                    if overflow { allIntegers = false } else { integerSum = sum }
                } else {
                    allIntegers = false
                }
            }
            if op == .avg { return counted == 0 ? .integer(0) : .real(realSum / Double(counted)) }
            return allIntegers ? .integer(integerSum) : .real(realSum)
        case .min, .max:
            var best: PredicateValue? = nil
            for value in values {
                if case .null = value { continue }
                guard let current = best else { best = value; continue }
                guard let order = value.compare(to: current) else { return .null }
                if (op == .min && order == .orderedAscending) || (op == .max && order == .orderedDescending) { best = value }
            }
            return best ?? .null
        case .unionOfObjects, .distinctUnionOfObjects:
            let kept = values.filter { if case .null = $0 { false } else { true } }
            return .array(op == .distinctUnionOfObjects ? Self.distinct(kept) : kept)
        case .unionOfArrays, .distinctUnionOfArrays:
            let flattened = values.flatMap { $0.collectionElements ?? [] }
            return .array(op == .distinctUnionOfArrays ? Self.distinct(flattened) : flattened)
        }
    }

    private static func distinct(_ values: [PredicateValue]) -> [PredicateValue] {
        var result: [PredicateValue] = []
        for value in values where !result.contains(where: { $0.isEqual(to: value) }) { result.append(value) }
        return result
    }
}

/// The SUBQUERY variables of one evaluation. Real rules bind at most three, so the first four
/// slots live inline and evaluating a rule allocates nothing for them.
struct PredicateFrame {
    private var slot0 = PredicateValue.null
    private var slot1 = PredicateValue.null
    private var slot2 = PredicateValue.null
    private var slot3 = PredicateValue.null
    private var overflow: [PredicateValue]
    /// The steps left of the evaluation's budget; at 0, it has run out.
    private(set) var steps: Int

    init(slotCount: Int, steps: Int = PredicateEvaluator.stepBudget) {
        overflow = slotCount > 4 ? Array(repeating: .null, count: slotCount - 4) : []
        self.steps = steps
    }

    /// Takes one step of the budget: false once it has run out.
    mutating func spend() -> Bool {
        guard steps > 0 else { return false }
        steps -= 1
        return true
    }

    /// Lends the rest of the budget to `body`, which spends from it as it goes.
    mutating func spending<T>(_ body: (inout Int) -> T) -> T {
        body(&steps)
    }

    subscript(slot: Int) -> PredicateValue {
        get {
            switch slot {
            case 0: slot0
            case 1: slot1
            case 2: slot2
            case 3: slot3
            default: overflow[slot - 4]
            }
        }
        set {
            switch slot {
            case 0: slot0 = newValue
            case 1: slot1 = newValue
            case 2: slot2 = newValue
            case 3: slot3 = newValue
            default: overflow[slot - 4] = newValue
            }
        }
    }
}
