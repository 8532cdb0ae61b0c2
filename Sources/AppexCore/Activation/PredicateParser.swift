/// Parses an NSPredicate format string into a ``PredicateNode`` tree.
///
/// Precedence, loosest first: `OR` (`||`), `AND` (`&&`), `NOT` (`!`), comparisons, then the
/// expression operators `+ -`, `* /`, `**`, unary `-`, and key paths and subscripts.
/// Recursion is bounded by ``ActivationRuleLimits/maximumNesting``.
struct PredicateParser {
    let tokens: [PredicateToken]
    let bytes: [UInt8]
    var position = 0
    var depth = 0
    /// The SUBQUERY variables in scope, innermost last.
    var scopes: [(name: String, slot: Int)] = []
    var slotCount = 0
    /// For each `(` token, the index of its matching `)`, found in one pass up front.
    var matchingParenthesis: [Int: Int] = [:]
    /// Byte offsets of `AND`s that sit unparenthesized beside an `OR`, where precedence may surprise.
    var mixedPrecedence: [Int] = []

    init(tokens: [PredicateToken], bytes: [UInt8]) {
        self.tokens = tokens
        self.bytes = bytes
        var open: [Int] = []
        for (index, token) in tokens.enumerated() {
            if token.isSymbol("(") { open.append(index) }
            if token.isSymbol(")"), let start = open.popLast() { matchingParenthesis[start] = index }
        }
    }

    /// Parses a whole rule.
    static func parse(_ text: String) throws(ActivationRuleError) -> (root: PredicateNode, slotCount: Int, mixedPrecedence: [Int]) {
        let bytes = Array(text.utf8)
        guard bytes.count <= ActivationRuleLimits.maximumLength else {
            throw ActivationRuleError(
                .tooLong, "the predicate is \(bytes.count) bytes long, over the limit of \(ActivationRuleLimits.maximumLength) bytes",
                line: 1, column: 1, hint: "activation rules describe types and counts; real ones are a few hundred bytes")
        }
        let tokens = try PredicateLexer.tokenize(bytes)
        var parser = PredicateParser(tokens: tokens, bytes: bytes)
        if parser.current.kind == .end {
            throw ActivationRuleError(
                .empty, "the predicate is empty", line: 1, column: 1, expected: "a predicate",
                found: "the end of the rule", hint: "write a rule such as SUBQUERY(extensionItems, $item, …).@count > 0")
        }
        let root = try parser.parseOr()
        guard parser.current.kind == .end else {
            throw parser.error(
                at: parser.current, "unexpected text after the end of the predicate",
                expected: "AND, OR or the end of the rule",
                hint: parser.current.isSymbol(")") ? "this ')' has no matching '('" : nil)
        }
        return (root, parser.slotCount, parser.mixedPrecedence)
    }

    var current: PredicateToken { tokens[position] }

    func peek(_ offset: Int) -> PredicateToken { tokens[min(position + offset, tokens.count - 1)] }

    mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    func error(
        _ code: ActivationRuleError.Code = .syntax, at token: PredicateToken, _ message: String,
        expected: String? = nil, hint: String? = nil
    ) -> ActivationRuleError {
        let (line, column) = SourceLocator(bytes: bytes).location(of: token.start)
        return ActivationRuleError(
            code, message, line: line, column: column, expected: expected, found: token.quoted, hint: hint)
    }

    /// Enters one level of nesting, failing past the limit.
    mutating func enter() throws(ActivationRuleError) {
        depth += 1
        if depth > ActivationRuleLimits.maximumNesting {
            throw error(
                .tooDeep, at: current, "the predicate nests deeper than \(ActivationRuleLimits.maximumNesting) levels",
                hint: "simplify the rule; nesting this deep is never needed to describe items")
        }
    }

    mutating func expect(_ symbol: String, _ what: String) throws(ActivationRuleError) {
        guard current.isSymbol(symbol) else {
            throw error(at: current, "expected '\(symbol)' \(what)", expected: "'\(symbol)'")
        }
        advance()
    }

    // MARK: Predicates

    mutating func parseOr() throws(ActivationRuleError) -> PredicateNode {
        var (first, andOffset) = try parseAnd()
        var terms = [first]
        while current.isKeyword("OR") || current.isSymbol("||") {
            advance()
            let (term, offset) = try parseAnd()
            terms.append(term)
            andOffset = andOffset ?? offset
        }
        if terms.count > 1, let andOffset { mixedPrecedence.append(andOffset) }
        first = terms.count == 1 ? terms[0] : .or(terms)
        return first
    }

    /// Parses an `AND` chain; also returns the offset of its first `AND`, if it has one.
    mutating func parseAnd() throws(ActivationRuleError) -> (PredicateNode, Int?) {
        var terms = [try parseNot()]
        var firstAnd: Int? = nil
        while current.isKeyword("AND") || current.isSymbol("&&") {
            firstAnd = firstAnd ?? current.start
            advance()
            terms.append(try parseNot())
        }
        return (terms.count == 1 ? terms[0] : .and(terms), firstAnd)
    }

    mutating func parseNot() throws(ActivationRuleError) -> PredicateNode {
        guard current.isKeyword("NOT") || current.isSymbol("!") else { return try parsePrimaryPredicate() }
        try enter()
        defer { depth -= 1 }
        advance()
        return .not(try parseNot())
    }

    mutating func parsePrimaryPredicate() throws(ActivationRuleError) -> PredicateNode {
        if current.isKeyword("TRUEPREDICATE") { advance(); return .constant(true) }
        if current.isKeyword("FALSEPREDICATE") { advance(); return .constant(false) }
        if current.isSymbol("("), parenthesizesPredicate() {
            try enter()
            defer { depth -= 1 }
            let open = current
            advance()
            let inner = try parseOr()
            guard current.isSymbol(")") else {
                throw error(
                    at: current, "expected ')' to close the '(' at \(describeLocation(open))",
                    expected: "')', AND or OR")
            }
            advance()
            return inner
        }
        return try parseComparison()
    }

    func describeLocation(_ token: PredicateToken) -> String {
        let (line, column) = SourceLocator(bytes: bytes).location(of: token.start)
        return "line \(line), column \(column)"
    }

    /// Whether the `(` at the current position opens a predicate rather than an expression:
    /// it does unless the token after its matching `)` continues an expression or a comparison.
    func parenthesizesPredicate() -> Bool {
        guard let index = matchingParenthesis[position] else { return true }
        let after = tokens[min(index + 1, tokens.count - 1)]
        if comparisonOperator(after) != nil { return false }
        if case .symbol(let symbol) = after.kind, ["+", "-", "*", "/", "**", ".", "["].contains(symbol) { return false }
        return true
    }

    func comparisonOperator(_ token: PredicateToken) -> ComparisonOperator? {
        switch token.kind {
        case .symbol(let symbol):
            switch symbol {
            case "==", "=": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .less
            case "<=", "=<": return .lessOrEqual
            case ">": return .greater
            case ">=", "=>": return .greaterOrEqual
            default: return nil
            }
        case .word(let word):
            switch word.uppercased() {
            case "BETWEEN": return .between
            case "IN": return .in
            case "CONTAINS": return .contains
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "LIKE": return .like
            case "MATCHES": return .matches
            case "UTI-CONFORMS-TO": return .utiConformsTo
            case "UTI-EQUALS": return .utiEquals
            default: return nil
            }
        default:
            return nil
        }
    }

    mutating func parseComparison() throws(ActivationRuleError) -> PredicateNode {
        var modifier = ComparisonModifier.direct
        switch current.keyword {
        case "ANY", "SOME": modifier = .any
        case "ALL": modifier = .all
        case "NONE": modifier = .none
        default: break
        }
        if modifier != .direct { advance() }
        let leftToken = current
        let left = try parseExpression()
        let operatorToken = current
        guard let operation = comparisonOperator(operatorToken) else {
            throw missingOperator(after: left, leftToken: leftToken)
        }
        advance()
        let options = try parseOptions()
        let right = try parseExpression()
        let prepared = try prepare(operation: operation, options: options, right: right, operatorToken: operatorToken)
        return .comparison(ComparisonNode(
            modifier: modifier, operation: operation, options: options, left: left, right: right,
            offset: operatorToken.start, prepared: prepared))
    }

    func missingOperator(after left: ExpressionNode, leftToken: PredicateToken) -> ActivationRuleError {
        if current.kind == .end, case .keyPath(.evaluatedObject, let keys) = left, keys.count == 1,
            case .key(let key, _) = keys[0], key.hasPrefix("NSExtension")
        {
            return error(
                .keyNameAsPredicate, at: leftToken, "the predicate is the key name '\(key)'",
                expected: "a predicate", hint: "put the key in a dictionary rule (<dict><key>\(key)</key>…</dict>), or write a SUBQUERY predicate")
        }
        var hint: String? = nil
        if case .word(let word) = current.kind, ["CONFORMS", "CONFORMSTO", "CONFORMS-TO", "UTI"].contains(word.uppercased()) {
            hint = "the operator is spelled UTI-CONFORMS-TO"
        } else if case .keyPath = left, current.kind == .end || current.isKeyword("AND") || current.isKeyword("OR") {
            hint = "a key path alone is not a predicate; compare it, as in key == YES"
        }
        return error(
            at: current, "expected a comparison operator",
            expected: "==, !=, <, <=, >, >=, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, BETWEEN, UTI-CONFORMS-TO or UTI-EQUALS",
            hint: hint)
    }

    /// Parses `[c]`, `[d]`, `[cd]` (and `[n]`) after an operator.
    mutating func parseOptions() throws(ActivationRuleError) -> StringOptions {
        guard current.isSymbol("["), case .word(let letters) = peek(1).kind, peek(2).isSymbol("]") else { return [] }
        var options: StringOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default:
                throw error(at: peek(1), "unknown comparison option", expected: "[c], [d], [cd] or [n]")
            }
        }
        advance(); advance(); advance()
        return options
    }
}
