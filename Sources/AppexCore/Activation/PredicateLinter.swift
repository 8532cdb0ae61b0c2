/// Lint for predicate rules: tautologies, precedence, type identifiers and key paths.
struct PredicateLinter {
    let predicate: CompiledPredicate
    let types: UTTypeGraph
    private var warnings: [ActivationRuleWarning] = []
    /// Lint stops after this many warnings, so a hostile rule can't make it quadratic.
    static let maximumWarnings = 50
    private let locator: SourceLocator

    init(predicate: CompiledPredicate, types: UTTypeGraph) {
        self.predicate = predicate
        self.types = types
        self.locator = SourceLocator(bytes: Array(predicate.format.utf8))
    }

    /// What a key path points at in the serialized items, so misspelled keys can be caught.
    indirect enum Shape: Equatable {
        case root, item, attachment, fileProviderItem, typeIdentifier, value
        case collection(Shape)

        var knownKeys: [String] {
            switch self {
            case .root: ["extensionItems", "fileproviderItems"]
            case .item: ["attributedTitle", "attributedContentText", "userInfo", "attachments"]
            case .attachment: ["registeredTypeIdentifiers", "suggestedName", "fileSize"]
            default: []
            }
        }

        func child(_ key: String) -> Shape? {
            switch (self, key) {
            case (.root, "extensionItems"): .collection(.item)
            case (.root, "fileproviderItems"): .collection(.fileProviderItem)
            case (.item, "attachments"): .collection(.attachment)
            case (.attachment, "registeredTypeIdentifiers"): .collection(.typeIdentifier)
            case (.root, _), (.item, _), (.attachment, _): knownKeys.contains(key) ? .value : nil
            case (.collection(let element), _): element.child(key).map { .collection($0) }
            default: .value
            }
        }
    }

    consuming func run() -> [ActivationRuleWarning] {
        switch constantValue(predicate.root) {
        case true?:
            add(.matchesEverything, "the predicate is always true, so the extension is offered for every input", severity: .distribution, offset: 0,
                hint: "name the types the extension handles, as in SUBQUERY(extensionItems, $item, SUBQUERY($item.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"public.image\").@count > 0).@count > 0")
        case false?:
            add(.neverMatches, "the predicate is always false, so the extension is never offered", offset: 0, hint: nil)
        case nil:
            break
        }
        for offset in predicate.mixedPrecedence {
            add(.precedence, "AND binds tighter than OR, so `A OR B AND C` reads as `A OR (B AND C)`", offset: offset,
                hint: "add parentheses to say which you mean")
        }
        var scope: [Int: Shape] = [:]
        walk(predicate.root, selfShape: .root, scope: &scope)
        return warnings
    }

    mutating func add(
        _ code: ActivationRuleWarning.Code, _ message: String, severity: ActivationRuleWarning.Severity = .warning,
        offset: Int, hint: String?
    ) {
        guard warnings.count < Self.maximumWarnings else { return }
        let (line, column) = locator.location(of: offset)
        let warning = ActivationRuleWarning(code, message, severity: severity, line: line, column: column, hint: hint)
        if !warnings.contains(warning) { warnings.append(warning) }
    }

    // MARK: Constant folding

    /// The predicate's value when it does not depend on the items.
    func constantValue(_ node: PredicateNode) -> Bool? {
        switch node {
        case .constant(let value):
            return value
        case .not(let inner):
            return constantValue(inner).map { !$0 }
        case .and(let terms):
            let values = terms.map(constantValue)
            if values.contains(false) { return false }
            return values.allSatisfy { $0 == true } ? true : nil
        case .or(let terms):
            let values = terms.map(constantValue)
            if values.contains(true) { return true }
            return values.allSatisfy { $0 == false } ? false : nil
        case .comparison(let comparison):
            if isConstant(comparison.left), isConstant(comparison.right) {
                let evaluator = PredicateEvaluator(context: ActivationContext(items: ActivationItems([]), types: types))
                return evaluator.evaluate(node, object: .null, slotCount: 0)
            }
            // A count is never negative: `….@count >= 0` always holds.
            if isCount(comparison.left), comparison.modifier == .direct, let bound = comparison.right.constantValue?.numericValue {
                switch comparison.operation {
                case .greaterOrEqual where bound <= 0, .greater where bound < 0: return true
                case .less where bound <= 0, .lessOrEqual where bound < 0: return false
                default: return nil
                }
            }
            return nil
        }
    }

    private func isConstant(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .constant: true
        case .aggregate(let elements): elements.allSatisfy(isConstant)
        case .arithmetic(_, let lhs, let rhs): isConstant(lhs) && isConstant(rhs)
        case .negate(let operand): isConstant(operand)
        default: false
        }
    }

    private func isCount(_ expression: ExpressionNode) -> Bool {
        switch expression {
        case .subqueryCount: true
        case .keyPath(_, let components): components.last == .collectionOperator(.count)
        case .index(_, .size): true
        default: false
        }
    }
}
