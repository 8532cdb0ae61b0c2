/// One test of an item's type against a type constant of a canonical comparison: what
/// decided the comparison's path, as far as that constant goes.
struct TypeTest: Equatable {
    /// Which of the comparison's type constants (``ComparisonNode/typeParameter``).
    var parameter: Int
    /// The type tested: as the items hold it for `UTI-CONFORMS-TO`, lower-cased for `UTI-EQUALS`.
    var type: String
    /// `UTI-CONFORMS-TO`, else `UTI-EQUALS`.
    var conformance: Bool
    var result: Bool

    /// Whether the test answers the same with `types` as the comparison's constants.
    func holds(for types: [String], in context: ActivationContext) -> Bool {
        let target = types[parameter]
        return (conformance ? context.conforms(type, toLowercased: target) : type == target) == result
    }
}

/// The distinct ``TypeTest``s of one evaluation, up to ``limit``. Comparisons that differ
/// only in their type constants take the same path through the same items, and so give the
/// same answer in the same steps, whenever every test recorded answers the same for them.
final class TypeTestRecorder {
    /// The most tests kept: past it, the record is dropped as too long to be worth checking.
    static let limit = 64

    private(set) var tests: [TypeTest] = []
    /// Whether there were more tests than ``limit``.
    private(set) var overflowed = false

    func record(_ test: TypeTest) {
        guard !overflowed, !tests.contains(test) else { return }
        guard tests.count < Self.limit else {
            overflowed = true
            return
        }
        tests.append(test)
    }
}
