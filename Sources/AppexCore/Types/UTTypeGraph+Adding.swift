extension UTTypeGraph {
    /// A new graph with the types that installed apps export and import joined to this one.
    ///
    /// The rules, in order, for each declaration (see docs/uniform-types.md):
    /// 1. No app may redefine a type this graph's system table declares (any identifier,
    ///    `public.*` or not): the system's declaration stands, and an ``Issue`` with code
    ///    ``Issue/Code/redefinesSystemType`` records the attempt.
    /// 2. No app may declare a `dyn.` identifier, nor export a `public.*` one: that namespace
    ///    belongs to the system (``Issue/Code/reservedIdentifier``). An app may *import* a
    ///    `public.*` type the table lacks, which fills the gap until the table has it.
    /// 3. An exported declaration wins over an imported one of the same identifier, whichever
    ///    came first; between two of the same kind, the earlier wins
    ///    (``Issue/Code/overridden``). Pass apps in a stable order, such as by bundle identifier.
    ///
    /// Types declared here, exported or imported, then take part in conformance and tag
    /// lookups like system types; a system type with the same tag is still found first.
    public func adding(_ declarations: [UTTypeDeclaration]) -> UTTypeGraph {
        var entries: [(declaration: UTTypeDeclaration, origin: Origin)] = nodes.compactMap { node in
            node.origin == .undeclared ? nil : (node.declaration, node.origin)
        }
        var position: [CaseInsensitiveKey: Int] = [:]
        for (offset, entry) in entries.enumerated() {
            position[CaseInsensitiveKey(entry.declaration.identifier)] = offset
        }
        var issues = self.issues
        for declaration in declarations {
            let origin: Origin = declaration.kind == .imported ? .imported : .exported
            if DynamicType.isDynamic(declaration.identifier) {
                issues.append(Issue(code: .reservedIdentifier, declaration: declaration,
                    reason: "dyn. identifiers stand for undeclared tags and can't be declared; choose a reverse-DNS identifier you own"))
                continue
            }
            let key = CaseInsensitiveKey(declaration.identifier)
            guard let existing = position[key] else {
                if origin == .exported, hasPrefixIgnoringASCIICase(declaration.identifier, "public.") {
                    issues.append(Issue(code: .reservedIdentifier, declaration: declaration,
                        reason: "public.* identifiers belong to the system and can't be exported; import it instead, or use a reverse-DNS identifier you own"))
                    continue
                }
                position[key] = entries.count
                entries.append((declaration, origin))
                continue
            }
            let current = entries[existing]
            if current.origin == .system {
                issues.append(Issue(code: .redefinesSystemType, declaration: declaration,
                    reason: "redefines a system type; the system's declaration is kept"))
            } else if current.origin == .imported, origin == .exported {
                issues.append(Issue(code: .overridden, declaration: current.declaration,
                    reason: "an exported declaration of the same identifier wins over this imported one"))
                entries[existing] = (declaration, origin)
            } else {
                let winner = current.origin == .exported ? "an exported" : "an earlier imported"
                issues.append(Issue(code: .overridden, declaration: declaration,
                    reason: "\(winner) declaration of the same identifier wins over this one"))
            }
        }
        return UTTypeGraph(entries: entries, mimeInfo: mimeInfo, issues: issues)
    }
}
