extension PredicateLinter {
    mutating func walk(_ node: PredicateNode, selfShape: Shape, scope: inout [Int: Shape]) {
        switch node {
        case .constant:
            break
        case .not(let inner):
            walk(inner, selfShape: selfShape, scope: &scope)
        case .and(let terms), .or(let terms):
            for term in terms { walk(term, selfShape: selfShape, scope: &scope) }
        case .comparison(let comparison):
            let left = shape(of: comparison.left, selfShape: selfShape, scope: &scope, offset: comparison.offset)
            _ = shape(of: comparison.right, selfShape: selfShape, scope: &scope, offset: comparison.offset)
            checkComparison(comparison, leftShape: left)
        }
    }

    /// The shape an expression evaluates to, warning about keys the items do not have.
    mutating func shape(of expression: ExpressionNode, selfShape: Shape, scope: inout [Int: Shape], offset: Int) -> Shape {
        switch expression {
        case .evaluatedObject:
            return selfShape
        case .variable(let slot, _):
            return scope[slot] ?? .value
        case .keyPath(let base, let components):
            var current = shape(of: base, selfShape: selfShape, scope: &scope, offset: offset)
            for component in components {
                switch component {
                case .collectionOperator:
                    return .value
                case .key(let key, _):
                    guard let next = current.child(key) else {
                        var hint = LintSuggestions.closest(to: key, among: current.knownKeys).map { "did you mean \($0)?" }
                            ?? "the keys here are \(current.knownKeys.joined(separator: ", "))"
                        if current != .root, Shape.root.knownKeys.contains(key) {
                            hint = "inside SUBQUERY, a key path without a variable reads from each element, not from the items' root; compute it outside the SUBQUERY"
                        }
                        add(.unknownKeyPath, "the items have no key '\(key)' here, so it reads as nil", offset: offset, hint: hint)
                        return .value
                    }
                    current = next
                }
            }
            return current
        case .subquery(let subquery), .subqueryCount(let subquery):
            let collection = shape(of: subquery.collection, selfShape: selfShape, scope: &scope, offset: offset)
            let element: Shape = if case .collection(let inner) = collection { inner } else { .value }
            scope[subquery.slot] = element
            walk(subquery.predicate, selfShape: element, scope: &scope)
            if case .subqueryCount = expression { return .value }
            return .collection(element)
        case .aggregate(let elements):
            for element in elements { _ = shape(of: element, selfShape: selfShape, scope: &scope, offset: offset) }
            return .value
        case .index(let base, let index):
            let baseShape = shape(of: base, selfShape: selfShape, scope: &scope, offset: offset)
            if case .expression(let inner) = index { _ = shape(of: inner, selfShape: selfShape, scope: &scope, offset: offset) }
            if case .collection(let element) = baseShape, case .size = index { _ = element; return .value }
            if case .collection(let element) = baseShape { return element }
            return .value
        case .arithmetic(_, let lhs, let rhs):
            _ = shape(of: lhs, selfShape: selfShape, scope: &scope, offset: offset)
            _ = shape(of: rhs, selfShape: selfShape, scope: &scope, offset: offset)
            return .value
        case .negate(let operand):
            _ = shape(of: operand, selfShape: selfShape, scope: &scope, offset: offset)
            return .value
        case .constant:
            return .value
        }
    }

    private mutating func checkComparison(_ comparison: ComparisonNode, leftShape: Shape) {
        let isTypeOperator = comparison.operation == .utiConformsTo || comparison.operation == .utiEquals
        if isTypeOperator, comparison.modifier == .direct, case .collection = leftShape {
            add(.missingAny, "\(comparison.operation.rawValue) compares the whole array of type identifiers, which is never a type, so it is always false",
                offset: comparison.offset, hint: "add ANY before the key path: ANY $attachment.registeredTypeIdentifiers \(comparison.operation.rawValue) …")
        }
        if isTypeOperator, comparison.modifier != .direct, case .collection(.collection) = leftShape {
            add(.missingAny, "the elements of this key path are arrays, not type identifiers, so \(comparison.modifier.rawValue) … \(comparison.operation.rawValue) is always false",
                offset: comparison.offset, hint: "nest SUBQUERY per item and attachment, or flatten one level per array: SUBQUERY(extensionItems, $item, ANY $item.attachments.registeredTypeIdentifiers.@unionOfArrays \(comparison.operation.rawValue) …)")
        }
        let comparesTypes = isTypeOperator || leftShape == .typeIdentifier || leftShape == .collection(.typeIdentifier)
        guard comparesTypes else { return }
        var identifiers: [String] = []
        switch comparison.right.constantValue {
        case .string(let text)?: identifiers = [text]
        case .array(let values)?: identifiers = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: break
        }
        for identifier in identifiers { checkType(identifier, offset: comparison.offset) }
    }

    private static let mimeSuggestions: [String: String] = [
        "text/plain": "public.plain-text", "text/html": "public.html", "application/pdf": "com.adobe.pdf",
        "image/jpg": "public.jpeg", "video/mp4": "public.mpeg-4", "video/quicktime": "com.apple.quicktime-movie",
        "audio/mpeg": "public.mp3", "application/zip": "public.zip-archive", "text/uri-list": "public.url",
    ]

    private mutating func checkType(_ identifier: String, offset: Int) {
        let lowered = identifier.lowercased()
        if lowered.contains("/") {
            let subtype = lowered.split(separator: "/").last.map(String.init) ?? ""
            var suggestion = Self.mimeSuggestions[lowered]
            if suggestion == nil, subtype == "*" {
                suggestion = ["image": "public.image", "video": "public.movie", "audio": "public.audio", "text": "public.text"][String(lowered.split(separator: "/").first ?? "")]
            }
            if suggestion == nil, let declared = types.declaration(for: "public." + subtype) { suggestion = declared.identifier }
            add(.mimeTypeAsType, "\"\(identifier)\" is a MIME type; type identifiers are never MIME types, so this never matches", offset: offset,
                hint: suggestion.map { "use the uniform type identifier \($0)" } ?? "use the uniform type identifier for it, such as public.png for image/png")
            return
        }
        if ["public.item", "public.data", "public.content"].contains(lowered) {
            add(.broadType, "almost every attachment conforms to \(identifier), so this accepts nearly anything", offset: offset,
                hint: "name the types the extension really handles")
            return
        }
        guard types.declaration(for: identifier) == nil else { return }
        let suggestion = types.closestDeclaredIdentifier(to: identifier, maximumDistance: 2)
        add(.unknownType, "the type \"\(identifier)\" is not declared, so nothing conforms to it but itself", offset: offset,
            hint: suggestion.map { "did you mean \($0)?" } ?? "check the spelling, or declare it in UTExportedTypeDeclarations or UTImportedTypeDeclarations")
    }
}
