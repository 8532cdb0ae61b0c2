extension PredicateParser {
    mutating func parseExpression() throws(ActivationRuleError) -> ExpressionNode {
        try parseBinary(level: 0)
    }

    private static let binaryLevels: [[String]] = [["+", "-"], ["*", "/"], ["**"]]

    /// Parses left-associative arithmetic; each operator in a chain counts one nesting level,
    /// since the tree grows one level deeper with each.
    private mutating func parseBinary(level: Int) throws(ActivationRuleError) -> ExpressionNode {
        if level == Self.binaryLevels.count { return try parseUnary() }
        var left = try parseBinary(level: level + 1)
        let savedDepth = depth
        defer { depth = savedDepth }
        while case .symbol(let symbol) = current.kind, Self.binaryLevels[level].contains(symbol) {
            try enter()
            advance()
            let right = try parseBinary(level: level + 1)
            left = .arithmetic(symbol, left, right)
        }
        return left
    }

    private mutating func parseUnary() throws(ActivationRuleError) -> ExpressionNode {
        guard current.isSymbol("-") else { return try parsePostfix() }
        try enter()
        defer { depth -= 1 }
        advance()
        let operand = try parseUnary()
        switch operand {
        case .constant(.integer(let value)) where value != Int.min: return .constant(.integer(-value))
        case .constant(.real(let value)): return .constant(.real(-value))
        default: return .negate(operand)
        }
    }

    private mutating func parsePostfix() throws(ActivationRuleError) -> ExpressionNode {
        var node = try parsePrimaryExpression()
        let savedDepth = depth
        defer { depth = savedDepth }
        while true {
            if current.isSymbol(".") {
                advance()
                let component: KeyPathComponent
                switch current.kind {
                case .word(let key), .escapedWord(let key), .string(let key):
                    component = .key(key)
                case .collectionOperator(let name):
                    component = .collectionOperator(try collectionOperator(name))
                default:
                    throw error(at: current, "expected a key after '.'", expected: "a key, a quoted key or a collection operator such as @count")
                }
                advance()
                if case .keyPath(let base, let keys) = node {
                    node = .keyPath(base, keys + [component])
                } else {
                    node = .keyPath(node, [component])
                }
            } else if current.isSymbol("[") {
                try enter()
                advance()
                let index: IndexKind
                switch current.keyword {
                case "FIRST": index = .first; advance()
                case "LAST": index = .last; advance()
                case "SIZE": index = .size; advance()
                default: index = .expression(try parseExpression())
                }
                try expect("]", "to close the subscript")
                node = .index(node, index)
            } else {
                break
            }
        }
        if case .keyPath(.subquery(let subquery), let keys) = node, keys == [.collectionOperator(.count)] {
            return .subqueryCount(subquery)
        }
        return node
    }

    func collectionOperator(_ name: String) throws(ActivationRuleError) -> CollectionOperator {
        guard let op = CollectionOperator(rawValue: name) else {
            let known = CollectionOperator.allCases.map { "@" + $0.rawValue }.joined(separator: ", ")
            let hint = CollectionOperator.allCases.first { $0.rawValue.lowercased() == name.lowercased() }.map { "collection operators are case-sensitive: write @\($0.rawValue)" }
            throw error(at: current, "unknown collection operator '@\(name)'", expected: known, hint: hint)
        }
        return op
    }

    private mutating func parsePrimaryExpression() throws(ActivationRuleError) -> ExpressionNode {
        let token = current
        switch token.kind {
        case .string(let text):
            advance()
            return .constant(.string(text))
        case .integer(let value):
            advance()
            return .constant(.integer(value))
        case .real(let value):
            advance()
            return .constant(.real(value))
        case .escapedWord(let key):
            advance()
            return .keyPath(.evaluatedObject, [.key(key)])
        case .collectionOperator(let name):
            let op = try collectionOperator(name)
            advance()
            return .keyPath(.evaluatedObject, [.collectionOperator(op)])
        case .variable(let name):
            guard let scope = scopes.last(where: { $0.name == name }) else {
                throw error(
                    .unsupported, at: token, "the variable $\(name) is not defined",
                    hint: "activation rules get no substitution variables; only SUBQUERY defines one, as in SUBQUERY(extensionItems, $\(name), …)")
            }
            advance()
            return .variable(slot: scope.slot, name: name)
        case .formatSpecifier(let spec):
            throw error(
                .unsupported, at: token, "the format specifier \(spec) needs an argument, and an Info.plist rule has none",
                hint: "write the value itself, quoted, in the rule")
        case .symbol("{"):
            try enter()
            defer { depth -= 1 }
            advance()
            var elements: [ExpressionNode] = []
            if !current.isSymbol("}") {
                elements.append(try parseExpression())
                while current.isSymbol(",") {
                    advance()
                    elements.append(try parseExpression())
                }
            }
            try expect("}", "to close the aggregate")
            return .aggregate(elements)
        case .symbol("("):
            try enter()
            defer { depth -= 1 }
            advance()
            let inner = try parseExpression()
            try expect(")", "to close the parenthesized expression")
            return inner
        case .word(let word):
            return try parseWord(word, token: token)
        case .end:
            throw error(at: token, "expected an expression, found the end of the rule", expected: "a key path, a value or SUBQUERY(…)")
        default:
            throw error(at: token, "expected an expression", expected: "a key path, a value or SUBQUERY(…)")
        }
    }

    private mutating func parseWord(_ word: String, token: PredicateToken) throws(ActivationRuleError) -> ExpressionNode {
        let keyword = word.uppercased()
        switch keyword {
        case "TRUE", "YES": advance(); return .constant(.boolean(true))
        case "FALSE", "NO": advance(); return .constant(.boolean(false))
        case "NULL", "NIL": advance(); return .constant(.null)
        case "SELF": advance(); return .evaluatedObject
        case "SUBQUERY": return try parseSubquery()
        case "FUNCTION", "CAST", "FETCH", "ANYKEY":
            throw error(.unsupported, at: token, "\(keyword) is not supported in activation rules", hint: "compare key paths of the items with constants")
        default:
            break
        }
        if PredicateKeyword.reserved.contains(keyword) {
            throw error(
                at: token, "expected an expression, found the keyword \(keyword)",
                expected: "a key path, a value or SUBQUERY(…)",
                hint: "a key spelled like a keyword must be escaped with '#', as in #\(word)")
        }
        if peek(1).isSymbol("(") {
            throw error(
                .unsupported, at: token, "function calls such as \(word)(…) are not supported in activation rules",
                hint: "did you mean SUBQUERY(…)?")
        }
        advance()
        return .keyPath(.evaluatedObject, [.key(word)])
    }

    private mutating func parseSubquery() throws(ActivationRuleError) -> ExpressionNode {
        try enter()
        defer { depth -= 1 }
        let open = current
        advance()
        try expect("(", "after SUBQUERY")
        let collection = try parseExpression()
        try expect(",", "after the collection of SUBQUERY(collection, $variable, predicate)")
        guard case .variable(let name) = current.kind else {
            throw error(at: current, "expected a variable such as $item as SUBQUERY's second argument", expected: "a $variable")
        }
        advance()
        try expect(",", "after the variable of SUBQUERY(collection, $variable, predicate)")
        let slot = slotCount
        slotCount += 1
        scopes.append((name, slot))
        let predicate = try parseOr()
        scopes.removeLast()
        guard current.isSymbol(")") else {
            throw error(
                at: current, "expected ')' to close the SUBQUERY at \(describeLocation(open))",
                expected: "')', AND or OR")
        }
        advance()
        return .subquery(SubqueryNode(collection: collection, slot: slot, variable: name, predicate: predicate))
    }
}
