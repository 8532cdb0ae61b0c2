/// A MATCHES pattern, matched in time linear in the text: the pattern becomes a small program
/// of states, and the text is read once while every state the pattern could be in is kept at
/// once (Thompson's construction, as RE2 and Go do), so no pattern can backtrack.
///
/// NSPredicate hands MATCHES to ICU, which backtracks: `(a+)+$` over forty letters takes
/// 2⁴⁰ steps, and Appex evaluates rules in appexd, for every host that asks. This reads ICU's
/// syntax, less what no linear matcher can do: back-references, look-around, atomic and
/// possessive forms, inline flags. A pattern that uses one is refused when the rule is parsed,
/// with the construct named. Like NSPredicate, it matches the whole text.
struct LinearRegex: Sendable {
    /// Why a pattern can't be compiled, and at which scalar of it.
    struct SyntaxError: Error, Sendable {
        var message: String
        var offset: Int
    }

    /// The most states a compiled pattern may have; `{n,m}` repeats its operand.
    static let maximumStates = 4096

    /// What ICU's `.` doesn't match without DOTALL.
    private static let lineEnds: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]

    private let program: [Instruction]
    private let sets: [ScalarSet]
    private let caseInsensitive: Bool

    init(_ pattern: String, caseInsensitive: Bool) throws(SyntaxError) {
        var parser = Parser(scalars: Array(pattern.unicodeScalars))
        let tree = try parser.parse()
        var compiler = Compiler()
        try compiler.emit(tree)
        compiler.program.append(.match)
        program = compiler.program
        sets = parser.sets
        self.caseInsensitive = caseInsensitive
    }

    /// Whether the pattern matches the whole of `text`. Each state kept at each scalar spends
    /// one of `steps`; a text that would take more than are left doesn't match.
    func matches(_ text: String, steps: inout Int) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var current = StateSet(capacity: program.count)
        var next = StateSet(capacity: program.count)
        add(0, at: 0, count: scalars.count, to: &current)
        for (position, scalar) in scalars.enumerated() {
            guard !current.isEmpty else { return false }
            steps -= current.count
            guard steps > 0 else { return false }
            next.removeAll()
            for state in current.members {
                switch program[state] {
                case .scalar(let expected) where accepts(scalar, expected): add(state + 1, at: position + 1, count: scalars.count, to: &next)
                case .any where !Self.lineEnds.contains(scalar): add(state + 1, at: position + 1, count: scalars.count, to: &next)
                case .set(let index) where contains(sets[index], scalar): add(state + 1, at: position + 1, count: scalars.count, to: &next)
                default: continue
                }
            }
            swap(&current, &next)
        }
        return current.members.contains { program[$0] == .match }
    }

    /// Adds `state` and every state reached from it without reading, at `position` of a text
    /// of `count` scalars.
    private func add(_ state: Int, at position: Int, count: Int, to set: inout StateSet) {
        var pending = [state]
        while let state = pending.popLast() {
            guard set.insert(state) else { continue }
            switch program[state] {
            case .split(let first, let second): pending += [second, first]
            case .jump(let target): pending.append(target)
            case .start where position == 0: pending.append(state + 1)
            case .end where position == count: pending.append(state + 1)
            default: continue
            }
        }
    }

    private func accepts(_ scalar: Unicode.Scalar, _ expected: Unicode.Scalar) -> Bool {
        scalar == expected || (caseInsensitive && Self.variants(of: scalar).contains(expected))
    }

    private func contains(_ set: ScalarSet, _ scalar: Unicode.Scalar) -> Bool {
        set.contains(scalar) || (caseInsensitive && Self.variants(of: scalar).contains { set.contains($0) })
    }

    /// The scalar in lower and upper case, where each is a single scalar.
    private static func variants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        [scalar.properties.lowercaseMapping, scalar.properties.uppercaseMapping].compactMap { mapping in
            let scalars = mapping.unicodeScalars
            return scalars.count == 1 ? scalars.first : nil
        }
    }

    // MARK: The program

    enum Instruction: Equatable, Sendable {
        case scalar(Unicode.Scalar)
        /// Any scalar but a line end, as ICU's `.` without DOTALL.
        case any
        case set(Int)
        /// Go on at both.
        case split(Int, Int)
        case jump(Int)
        /// `^` or `\A`: only at the start of the text.
        case start
        /// `$`, `\z` or `\Z`: only at its end.
        case end
        case match
    }

    /// A class: `[a-z\d]`, `\w`, or their negations.
    struct ScalarSet: Sendable {
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        var classes: [(kind: Character, negated: Bool)] = []
        var negated = false

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let inside = ranges.contains { $0.contains(scalar) } || classes.contains { Self.isIn($0.kind, scalar) != $0.negated }
            return inside != negated
        }

        /// `\d`, `\w` or `\s`, as ICU defines them.
        static func isIn(_ kind: Character, _ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch kind {
            case "d": return properties.generalCategory == .decimalNumber
            case "s": return properties.isWhitespace
            default:
                return properties.isAlphabetic || properties.generalCategory == .decimalNumber
                    || [.nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation].contains(properties.generalCategory)
                    || scalar == "\u{200C}" || scalar == "\u{200D}"
            }
        }
    }

    /// The parsed pattern.
    indirect enum Node {
        case empty
        case scalar(Unicode.Scalar)
        case any
        case set(Int)
        case start, end
        case sequence([Node])
        case alternatives([Node])
        case repetition(Node, minimum: Int, maximum: Int?)
    }

    /// The states each scalar of the text may be in, in the order they were reached.
    private struct StateSet {
        private(set) var members: [Int] = []
        private var marks: [Bool]

        init(capacity: Int) {
            marks = Array(repeating: false, count: capacity)
            members.reserveCapacity(capacity)
        }

        var isEmpty: Bool { members.isEmpty }
        var count: Int { members.count }

        mutating func insert(_ state: Int) -> Bool {
            guard !marks[state] else { return false }
            marks[state] = true
            members.append(state)
            return true
        }

        mutating func removeAll() {
            for state in members { marks[state] = false }
            members.removeAll(keepingCapacity: true)
        }
    }

    /// Turns the tree into instructions.
    private struct Compiler {
        var program: [Instruction] = []

        mutating func emit(_ node: Node) throws(SyntaxError) {
            guard program.count < LinearRegex.maximumStates else {
                throw SyntaxError(message: "the pattern needs more than \(LinearRegex.maximumStates) states; repeat less with {n,m}", offset: 0)
            }
            switch node {
            case .empty: break
            case .scalar(let scalar): program.append(.scalar(scalar))
            case .any: program.append(.any)
            case .set(let index): program.append(.set(index))
            case .start: program.append(.start)
            case .end: program.append(.end)
            case .sequence(let nodes):
                for node in nodes { try emit(node) }
            case .alternatives(let nodes):
                // split(first, rest) … first … jump(end) … rest
                var jumps: [Int] = []
                for (index, node) in nodes.enumerated() {
                    if index < nodes.count - 1 {
                        let split = program.count
                        program.append(.split(split + 1, 0))
                        try emit(node)
                        jumps.append(program.count)
                        program.append(.jump(0))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try emit(node)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repetition(let node, let minimum, let maximum):
                for _ in 0..<minimum { try emit(node) }
                if let maximum {
                    // Each optional copy may be skipped, to the end.
                    var splits: [Int] = []
                    for _ in minimum..<maximum {
                        splits.append(program.count)
                        program.append(.split(program.count + 1, 0))
                        try emit(node)
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    let loop = program.count
                    program.append(.split(loop + 1, 0))
                    try emit(node)
                    program.append(.jump(loop))
                    program[loop] = .split(loop + 1, program.count)
                }
            }
        }
    }
}

extension LinearRegex.ScalarSet {
    fileprivate mutating func add(_ scalar: Unicode.Scalar) { ranges.append(scalar...scalar) }
}

/// Reads ICU's syntax into a ``LinearRegex/Node``.
private struct Parser {
    let scalars: [Unicode.Scalar]
    var position = 0
    var depth = 0
    var sets: [LinearRegex.ScalarSet] = []

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    mutating func parse() throws(LinearRegex.SyntaxError) -> LinearRegex.Node {
        let node = try alternatives()
        if position < scalars.count { throw error("an unmatched )") }
        return node
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func error(_ message: String) -> LinearRegex.SyntaxError {
        LinearRegex.SyntaxError(message: message, offset: position)
    }

    private mutating func alternatives() throws(LinearRegex.SyntaxError) -> LinearRegex.Node {
        var branches = [try sequence()]
        while current == "|" {
            position += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternatives(branches)
    }

    private mutating func sequence() throws(LinearRegex.SyntaxError) -> LinearRegex.Node {
        var nodes: [LinearRegex.Node] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            nodes.append(try repetition())
        }
        return nodes.isEmpty ? .empty : nodes.count == 1 ? nodes[0] : .sequence(nodes)
    }

    private mutating func repetition() throws(LinearRegex.SyntaxError) -> LinearRegex.Node {
        let atom = try self.atom()
        guard let scalar = current else { return atom }
        let bounds: (Int, Int?)
        switch scalar {
        case "*": bounds = (0, nil)
        case "+": bounds = (1, nil)
        case "?": bounds = (0, 1)
        case "{": bounds = try counts()
        default: return atom
        }
        if scalar != "{" { position += 1 }
        if current == "+" { throw error("a possessive quantifier (*+, ++, ?+) needs backtracking, which MATCHES doesn't do in Appex") }
        if current == "?" { position += 1 }  // lazy: the same for a whole match
        if current == "*" || current == "+" || current == "?" || current == "{" { throw error("two quantifiers in a row") }
        switch atom {
        case .start, .end: throw error("nothing to repeat")
        case .empty: return .empty
        default: return .repetition(atom, minimum: bounds.0, maximum: bounds.1)
        }
    }

    /// `{n}`, `{n,}` or `{n,m}` at the current position, read past.
    private mutating func counts() throws(LinearRegex.SyntaxError) -> (Int, Int?) {
        let start = position
        position += 1
        func number() -> Int? {
            var digits = ""
            while let scalar = current, ("0"..."9").contains(scalar), digits.count < 6 {
                digits.unicodeScalars.append(scalar)
                position += 1
            }
            return Int(digits)
        }
        guard let minimum = number() else { throw error("{ must begin a count such as {2} or {1,3}") }
        var maximum: Int? = minimum
        if current == "," {
            position += 1
            maximum = number()
        }
        guard current == "}" else { throw error("an unfinished count, begun at \(start)") }
        position += 1
        if let maximum, maximum < minimum { throw error("the count {\(minimum),\(maximum)} has its bounds the wrong way round") }
        if (maximum ?? minimum) > 1000 { throw error("a count over 1000") }
        return (minimum, maximum)
    }

    private mutating func atom() throws(LinearRegex.SyntaxError) -> LinearRegex.Node {
        guard let scalar = current else { throw error("the pattern ends too soon") }
        position += 1
        switch scalar {
        case ".": return .any
        case "^": return .start
        case "$": return .end
        case "[": return .set(try set())
        case "(": return try group()
        case "*", "+", "?": throw error("nothing to repeat before \(scalar)")
        case "\\": return try escape()
        default: return .scalar(scalar)
        }
    }

    private mutating func group() throws(LinearRegex.SyntaxError) -> LinearRegex.Node {
        depth += 1
        defer { depth -= 1 }
        guard depth <= ActivationRuleLimits.maximumNesting else { throw error("groups nest deeper than \(ActivationRuleLimits.maximumNesting)") }
        if current == "?" {
            let next = position + 1 < scalars.count ? scalars[position + 1] : nil
            switch next {
            case ":": position += 2
            case "<" where position + 2 < scalars.count && scalars[position + 2] != "=" && scalars[position + 2] != "!":
                // A named group: the name goes, the group stays.
                while let scalar = current, scalar != ">" { position += 1 }
                guard current == ">" else { throw error("an unfinished group name") }
                position += 1
            case "=", "!", "<": throw error("look-around ((?=, (?!, (?<=, (?<!) can't be matched in linear time, so MATCHES refuses it in Appex")
            case ">": throw error("an atomic group ((?>) needs backtracking, which MATCHES doesn't do in Appex")
            default: throw error("inline flags and other (? forms are not supported by MATCHES in Appex; use [c] for case-insensitivity")
            }
        }
        let inner = try alternatives()
        guard current == ")" else { throw error("a ( without its )") }
        position += 1
        return inner
    }

    private mutating func escape() throws(LinearRegex.SyntaxError) -> LinearRegex.Node {
        guard let scalar = current else { throw error("the pattern ends in a lone \\") }
        position += 1
        switch scalar {
        case "d", "D", "w", "W", "s", "S":
            var set = LinearRegex.ScalarSet()
            set.classes.append((Character(String(scalar).lowercased()), scalar.properties.isUppercase))
            sets.append(set)
            return .set(sets.count - 1)
        case "A": return .start
        case "z", "Z": return .end
        case "Q":
            // Quoted: literally, up to \E.
            var nodes: [LinearRegex.Node] = []
            while let scalar = current, !(scalar == "\\" && position + 1 < scalars.count && scalars[position + 1] == "E") {
                nodes.append(.scalar(scalar))
                position += 1
            }
            if current != nil { position += 2 }
            return .sequence(nodes)
        case "1"..."9", "k": throw error("a back-reference (\\\(scalar)) can't be matched in linear time, so MATCHES refuses it in Appex")
        case "b", "B", "G", "p", "P", "X", "R", "h", "H", "v", "V", "N":
            throw error("\\\(scalar) is not supported by MATCHES in Appex")
        default:
            return .scalar(try literalEscape(scalar))
        }
    }

    /// The scalar an escape outside a class's shorthands stands for: `\n`, `\t`, `\uhhhh`,
    /// `\x{h…}`, or a punctuation mark as itself.
    private mutating func literalEscape(_ scalar: Unicode.Scalar) throws(LinearRegex.SyntaxError) -> Unicode.Scalar {
        switch scalar {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "e": return "\u{1B}"
        case "a": return "\u{07}"
        case "u", "x":
            var digits = ""
            let braced = scalar == "x" && current == "{"
            if braced { position += 1 }
            let most = braced ? 8 : scalar == "u" ? 4 : 2
            while let digit = current, digit.properties.isASCIIHexDigit, digits.count < most {
                digits.unicodeScalars.append(digit)
                position += 1
            }
            if braced {
                guard current == "}" else { throw error("an unfinished \\x{…}") }
                position += 1
            }
            guard let value = UInt32(digits, radix: 16), let result = Unicode.Scalar(value) else { throw error("a bad \\\(scalar) escape") }
            return result
        default:
            guard !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else { throw error("\\\(scalar) is not an escape ICU knows") }
            return scalar
        }
    }

    private mutating func set() throws(LinearRegex.SyntaxError) -> Int {
        var set = LinearRegex.ScalarSet()
        if current == "^" {
            set.negated = true
            position += 1
        }
        var first = true
        while let scalar = current, scalar != "]" || first {
            first = false
            position += 1
            if scalar == "[" { throw error("nested classes and class operations are not supported by MATCHES in Appex") }
            var low = scalar
            if scalar == "\\" {
                guard let escaped = current else { break }
                position += 1
                if "dDwWsS".unicodeScalars.contains(escaped) {
                    set.classes.append((Character(String(escaped).lowercased()), escaped.properties.isUppercase))
                    continue
                }
                low = try literalEscape(escaped)
            }
            if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                var high = scalars[position]
                position += 1
                if high == "\\" {
                    guard let escaped = current else { break }
                    position += 1
                    high = try literalEscape(escaped)
                }
                guard low <= high else { throw error("the range \(low)-\(high) has its ends the wrong way round") }
                set.ranges.append(low...high)
            } else {
                set.add(low)
            }
        }
        guard current == "]" else { throw error("a [ without its ]") }
        position += 1
        sets.append(set)
        return sets.count - 1
    }
}
