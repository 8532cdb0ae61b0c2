/// One token of an NSPredicate format string, with its byte range in the UTF-8 text.
struct PredicateToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A bare word: a key or a keyword (keywords are matched case-insensitively by the parser).
        case word(String)
        /// A `#word`: always a key, even when it spells a keyword.
        case escapedWord(String)
        /// A `$name` variable.
        case variable(String)
        /// A collection operator such as `@count`, without the `@`.
        case collectionOperator(String)
        case string(String)
        case integer(Int)
        case real(Double)
        /// Punctuation and operators, spelled as in the rule (`(`, `==`, `&&`, `**` …).
        case symbol(String)
        /// A printf-style specifier (`%@`, `%K`) that needs an argument a plist cannot give.
        case formatSpecifier(String)
        case end
    }

    var kind: Kind
    /// The byte offset of the token's first byte.
    var start: Int
    /// The byte offset just past the token.
    var end: Int

    /// The token as a message would quote it.
    var quoted: String {
        switch kind {
        case .word(let word): "'\(word)'"
        case .escapedWord(let word): "'#\(word)'"
        case .variable(let name): "'$\(name)'"
        case .collectionOperator(let name): "'@\(name)'"
        case .string(let text): "the string \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .integer(let number): "the number \(number)"
        case .real(let number): "the number \(number)"
        case .symbol(let symbol): "'\(symbol)'"
        case .formatSpecifier(let spec): "'\(spec)'"
        case .end: "the end of the rule"
        }
    }

    /// The keyword this token spells, upper-cased, when it is a bare word.
    var keyword: String? {
        if case .word(let word) = kind { word.uppercased() } else { nil }
    }

    func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let own) = kind { own == symbol } else { false }
    }

    func isKeyword(_ keyword: String) -> Bool {
        if case .word(let word) = kind {
            word.utf8.count == keyword.utf8.count && word.uppercased() == keyword
        } else {
            false
        }
    }
}

/// The reserved words of the format-string grammar. A key spelled like one needs a `#` prefix.
enum PredicateKeyword {
    static let reserved: Set<String> = [
        "AND", "OR", "NOT", "ANY", "ALL", "SOME", "NONE", "IN", "LIKE", "MATCHES", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "FALSE",
        "YES", "NO", "NULL", "NIL", "SELF", "SUBQUERY", "FIRST", "LAST", "SIZE", "FUNCTION",
        "CAST", "FETCH", "ANYKEY", "UTI-CONFORMS-TO", "UTI-EQUALS", "CASEINSENSITIVE", "CI",
    ]
}

/// Converts byte offsets in a rule into 1-based line and column numbers.
struct SourceLocator: Sendable {
    let bytes: [UInt8]

    /// The line and column of `offset`. Lines break at LF, CR and CRLF; columns count Unicode scalars.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var index = 0
        let limit = min(offset, bytes.count)
        while index < limit {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }
}
