/// Splits an NSPredicate format string into tokens.
///
/// The lexer works on UTF-8 bytes. Keywords are not resolved here: the parser matches them
/// case-insensitively, so `and`, `And` and `AND` are one keyword.
struct PredicateLexer {
    private let bytes: [UInt8]
    private var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// All tokens, ending with `.end`.
    static func tokenize(_ bytes: [UInt8]) throws(ActivationRuleError) -> [PredicateToken] {
        var lexer = PredicateLexer(bytes: bytes)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func error(
        _ code: ActivationRuleError.Code = .syntax, at offset: Int, _ message: String,
        expected: String? = nil, found: String? = nil, hint: String? = nil
    ) -> ActivationRuleError {
        let (line, column) = SourceLocator(bytes: bytes).location(of: offset)
        return ActivationRuleError(
            code, message, line: line, column: column, expected: expected, found: found, hint: hint)
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private static func isWordStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isWordStart(byte) || (byte >= 0x30 && byte <= 0x39)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func next() throws(ActivationRuleError) -> PredicateToken {
        // White space of any kind, anywhere: spaces, tabs, newlines, carriage returns, form feeds,
        // and U+00A0 (no-break space) and U+FEFF (byte-order mark), which editors insert.
        while let byte = peek() {
            if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                index += 1
            } else if byte == 0xC2, peek(1) == 0xA0 {
                index += 2
            } else if byte == 0xEF, peek(1) == 0xBB, peek(2) == 0xBF {
                index += 3
            } else {
                break
            }
        }
        let start = index
        guard let byte = peek() else { return PredicateToken(kind: .end, start: start, end: start) }

        if Self.isWordStart(byte) { return try lexWord(start: start) }
        if Self.isDigit(byte) { return try lexNumber(start: start) }

        switch byte {
        case 0x22, 0x27:  // " '
            return try lexString(start: start, quote: byte)
        case 0x24:  // $
            index += 1
            if peek() == 0x28 || peek() == 0x7B {
                throw error(
                    .buildSettingPlaceholder, at: start,
                    "the rule contains an unexpanded build-setting placeholder",
                    found: "'$\(peek() == 0x28 ? "(" : "{")'",
                    hint: "Xcode replaces $(NAME) only when it processes the Info.plist; write the rule itself in the plist")
            }
            guard let first = peek(), Self.isWordStart(first) else {
                throw error(at: start, "expected a variable name after '$'", expected: "a name such as $attachment", found: describe(at: index))
            }
            let name = readWord()
            return PredicateToken(kind: .variable(name), start: start, end: index)
        case 0x40:  // @
            index += 1
            guard let first = peek(), Self.isWordStart(first) else {
                throw error(at: start, "expected a collection operator after '@'", expected: "@count, @sum, @avg, @min or @max", found: describe(at: index))
            }
            return PredicateToken(kind: .collectionOperator(readWord()), start: start, end: index)
        case 0x23:  // #
            index += 1
            guard let first = peek(), Self.isWordStart(first) else {
                throw error(at: start, "expected a key after '#'", expected: "a key such as #IN", found: describe(at: index))
            }
            return PredicateToken(kind: .escapedWord(readWord()), start: start, end: index)
        case 0x25:  // %
            index += 1
            let spec = peek().map { String(UnicodeScalar($0)) } ?? ""
            if peek() != nil { index += 1 }
            return PredicateToken(kind: .formatSpecifier("%" + spec), start: start, end: index)
        case 0x5C:  // backslash
            if peek(1) == 0x22 || peek(1) == 0x27 {
                throw error(
                    .escapedQuotes, at: start, "a backslash-escaped quote outside a string",
                    expected: "a quoted string such as \"public.image\"", found: "'\\\(UnicodeScalar(peek(1)!))'",
                    hint: "the rule was copied from source code; in a plist write \"public.image\" without backslashes")
            }
            throw error(at: start, "unexpected backslash", found: "'\\'", hint: "backslashes are only allowed inside quoted strings")
        case 0x00:
            throw error(at: start, "unexpected NUL character", found: "U+0000", hint: "remove the NUL byte from the rule")
        default:
            break
        }
        return try lexSymbol(start: start)
    }

    private mutating func readWord() -> String {
        let start = index
        while let byte = peek(), Self.isWordByte(byte), !atUnicodeSpace() { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Whether a no-break space or byte-order mark, white space that is not ASCII, starts here.
    private func atUnicodeSpace() -> Bool {
        (peek() == 0xC2 && peek(1) == 0xA0) || (peek() == 0xEF && peek(1) == 0xBB && peek(2) == 0xBF)
    }

    private mutating func lexWord(start: Int) throws(ActivationRuleError) -> PredicateToken {
        var word = readWord()
        if word.unicodeScalars.contains("\u{FFFD}") {
            throw error(
                at: start, "the rule holds U+FFFD, the replacement character left where invalid UTF-8 was decoded",
                found: "'\u{FFFD}'", hint: "save the Info.plist as UTF-8 and retype the characters around here")
        }
        // UTI-CONFORMS-TO and UTI-EQUALS are words with hyphens in them.
        if word.uppercased() == "UTI", peek() == 0x2D {
            for suffix in ["-CONFORMS-TO", "-EQUALS"] where matchesCaseInsensitive(suffix) {
                index += suffix.utf8.count
                word += suffix
                break
            }
        }
        return PredicateToken(kind: .word(word), start: start, end: index)
    }

    private func matchesCaseInsensitive(_ text: String) -> Bool {
        var offset = 0
        for expected in text.utf8 {
            guard let byte = peek(offset) else { return false }
            let upper = (byte >= 0x61 && byte <= 0x7A) ? byte - 0x20 : byte
            if upper != expected { return false }
            offset += 1
        }
        if let after = peek(offset), Self.isWordByte(after) { return false }
        return true
    }

    private mutating func lexSymbol(start: Int) throws(ActivationRuleError) -> PredicateToken {
        let two = index + 1 < bytes.count ? String(decoding: bytes[index...index + 1], as: UTF8.self) : ""
        let twoByte = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"]
        if twoByte.contains(two) {
            index += 2
            return PredicateToken(kind: .symbol(two), start: start, end: index)
        }
        let one = String(UnicodeScalar(bytes[index]))
        if "(){}[],.=<>!+-*/:".contains(one) {
            index += 1
            return PredicateToken(kind: .symbol(one), start: start, end: index)
        }
        let found = describe(at: start)
        var hint: String? = nil
        if one == "?" { hint = "'?' is not a token; LIKE wildcards go inside a quoted string, as in name LIKE \"a?c\"" }
        if one == "&" || one == "|" { hint = "write && or ||, or AND or OR" }
        throw error(at: start, "unexpected character", found: found, hint: hint)
    }

    private mutating func lexNumber(start: Int) throws(ActivationRuleError) -> PredicateToken {
        if peek() == 0x30, let prefix = peek(1), let radix = [0x78: 16, 0x58: 16, 0x6F: 8, 0x4F: 8, 0x62: 2, 0x42: 2][prefix] {
            index += 2
            let digitsStart = index
            while let byte = peek(), Self.isWordByte(byte) { index += 1 }
            let digits = String(decoding: bytes[digitsStart..<index], as: UTF8.self)
            guard !digits.isEmpty, let value = Int(digits, radix: radix) else {
                throw error(at: start, "malformed number", expected: "digits in base \(radix)", found: "'\(String(decoding: bytes[start..<index], as: UTF8.self))'")
            }
            return PredicateToken(kind: .integer(value), start: start, end: index)
        }
        var isReal = false
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
        if peek() == 0x2E, let after = peek(1), Self.isDigit(after) {
            isReal = true
            index += 1
            while let byte = peek(), Self.isDigit(byte) { index += 1 }
        }
        if peek() == 0x65 || peek() == 0x45 {
            var offset = 1
            if peek(1) == 0x2B || peek(1) == 0x2D { offset = 2 }
            if let digit = peek(offset), Self.isDigit(digit) {
                isReal = true
                index += offset
                while let byte = peek(), Self.isDigit(byte) { index += 1 }
            }
        }
        if let byte = peek(), Self.isWordStart(byte) {
            throw error(at: index, "unexpected letter in a number", expected: "a digit, an operator or white space", found: describe(at: index))
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if !isReal, let value = Int(text) {
            return PredicateToken(kind: .integer(value), start: start, end: index)
        }
        guard let value = Double(text), value.isFinite else {
            throw error(at: start, "number out of range", found: "'\(text)'")
        }
        return PredicateToken(kind: .real(value), start: start, end: index)
    }

    private mutating func lexString(start: Int, quote: UInt8) throws(ActivationRuleError) -> PredicateToken {
        index += 1
        var scalars = String.UnicodeScalarView()
        var chunkStart = index
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[chunkStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = peek() else {
                let q = quote == 0x22 ? "\"" : "'"
                throw error(at: start, "unterminated string", expected: "a closing \(q)", found: "the end of the rule",
                            hint: "close the string that starts here with \(q)")
            }
            if byte == quote {
                flush(index)
                index += 1
                return PredicateToken(kind: .string(String(scalars)), start: start, end: index)
            }
            if byte == 0x00 {
                throw error(at: index, "unexpected NUL character in a string", found: "U+0000", hint: "remove the NUL byte from the rule")
            }
            guard byte == 0x5C else { index += 1; continue }
            flush(index)
            let escapeStart = index
            index += 1
            guard let escaped = peek() else { continue }
            index += 1
            switch escaped {
            case 0x6E: scalars.append("\n")
            case 0x74: scalars.append("\t")
            case 0x72: scalars.append("\r")
            case 0x30: scalars.append("\0")
            case 0x61: scalars.append("\u{07}")
            case 0x62: scalars.append("\u{08}")
            case 0x66: scalars.append("\u{0C}")
            case 0x76: scalars.append("\u{0B}")
            case 0x22, 0x27, 0x5C: scalars.append(UnicodeScalar(escaped))
            case 0x75, 0x78:  // \uXXXX, \xHH
                let count = escaped == 0x75 ? 4 : 2
                var value: UInt32 = 0
                for _ in 0..<count {
                    guard let digit = peek(), let hex = UInt32(String(UnicodeScalar(digit)), radix: 16) else {
                        throw error(at: escapeStart, "malformed escape in a string", expected: "\(count) hexadecimal digits", found: describe(at: index))
                    }
                    value = value * 16 + hex
                    index += 1
                }
                guard let scalar = UnicodeScalar(value) else {
                    throw error(at: escapeStart, "escape names no Unicode scalar", found: "U+\(String(value, radix: 16, uppercase: true))")
                }
                scalars.append(scalar)
            default:
                throw error(at: escapeStart, "unknown escape in a string", expected: "\\n, \\t, \\r, \\\\, \\\", \\' or \\uXXXX",
                            found: "'\\\(String(UnicodeScalar(escaped)))'", hint: "write \\\\ for a backslash")
            }
            chunkStart = index
        }
    }

    /// Describes the character at `offset` for a message.
    private func describe(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the rule" }
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let text = String(decoding: bytes[offset..<end], as: UTF8.self)
        if let scalar = text.unicodeScalars.first, scalar.value < 0x20 || scalar.value == 0x7F {
            return "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        }
        return "'\(text)'"
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
