/// An NSPredicate format string, parsed once and ready to evaluate many times.
///
/// ```swift
/// let predicate = try CompiledPredicate(format: #"SUBQUERY(extensionItems, $item, ANY $item.attachments.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image").@count > 0"#)
/// predicate.evaluate(ActivationContext(items: items, types: graph))
/// ```
public struct CompiledPredicate: Sendable {
    /// The format string as written.
    public let format: String
    let root: PredicateNode
    let slotCount: Int
    /// Byte offsets of `AND`s mixed with `OR` without parentheses, for lint.
    let mixedPrecedence: [Int]

    /// Parses a format string.
    ///
    /// - Throws: ``ActivationRuleError`` with the line and column of the first problem.
    public init(format: String) throws(ActivationRuleError) {
        let parsed = try PredicateParser.parse(format)
        self.format = format
        self.root = parsed.root
        self.slotCount = parsed.slotCount
        self.mixedPrecedence = parsed.mixedPrecedence
    }

    /// Whether the items in `context` satisfy the predicate.
    public func evaluate(_ context: ActivationContext) -> Bool {
        PredicateEvaluator(context: context).evaluate(root, object: context.root, slotCount: slotCount)
    }

    /// Evaluates against any value, with `SELF` bound to `object`; for tests and tools.
    public func evaluate(with object: PredicateValue, types: UTTypeGraph) -> Bool {
        let context = ActivationContext(items: ActivationItems([]), types: types)
        return PredicateEvaluator(context: context).evaluate(root, object: object, slotCount: slotCount)
    }
}
