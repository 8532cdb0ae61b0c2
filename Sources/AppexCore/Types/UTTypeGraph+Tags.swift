extension UTTypeGraph {
    /// The type for a filename extension (without the dot) that conforms to `supertype`.
    ///
    /// In order: a declared type with the extension; with shared-mime-info, a declared type
    /// for the extension's MIME type; else a dynamic type. `nil` if the extension is empty,
    /// starts with a dot, or holds a `/` or a control character.
    public func type(forFilenameExtension filenameExtension: String, conformingTo supertype: String = "public.data") -> UTType? {
        type(forTag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The type for a MIME type that conforms to `supertype`.
    ///
    /// In order: a declared type with the MIME type; with shared-mime-info, a declared type
    /// for its canonical name (`image/jpg` → `image/jpeg`); else a dynamic type that
    /// conforms to `supertype` and to the declared types of the MIME types it is a subclass
    /// of (`text/x-csrc` → `text/plain` → `public.plain-text`). Parameters such as
    /// `; charset=utf-8` are ignored when the full string matches nothing. `nil` if the
    /// string is not a MIME type.
    public func type(forMIMEType mimeType: String, conformingTo supertype: String = "public.data") -> UTType? {
        type(forTag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// The type for a tag of any class, as in Apple's `UTType(tag:tagClass:conformingTo:)`.
    ///
    /// - Parameter supertype: A type the result must conform to, or `nil` for any. A dynamic
    ///   result made without a supertype conforms to `public.data`.
    /// - Returns: `nil` for a malformed tag, or a tag class other than filename extensions and
    ///   MIME types when no declared type matches.
    public func type(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: String?) -> UTType? {
        if let node = declaredNodes(forTag: tag, tagClass: tagClass, conformingTo: supertype).first {
            return UTType(node: node, in: self)
        }
        var conformsTo: [String] = []
        var tags: [DynamicType.Tag] = []
        switch tagClass {
        case .filenameExtension:
            guard TagSyntax.isValidFilenameExtension(tag) else { return nil }
            tags.append(DynamicType.Tag(tagClass: .filenameExtension, value: tag.lowercased()))
            if let sharedMIMEInfo {
                let mimeTypes = sharedMIMEInfo.mimeTypes(forFilenameExtension: tag)
                for mimeType in mimeTypes {
                    if let node = declaredNodes(forMIMEType: mimeType, conformingTo: supertype).first {
                        return UTType(node: node, in: self)
                    }
                }
                if let mimeType = mimeTypes.first {
                    tags.append(DynamicType.Tag(tagClass: .mimeType, value: mimeType))
                    conformsTo = inheritedTypes(ofMIMEType: mimeType)
                }
            }
        case .mimeType:
            guard TagSyntax.isValidMIMEType(tag) else { return nil }
            let bare = Self.withoutParameters(tag)
            if let node = declaredNodes(forMIMEType: bare, conformingTo: supertype).first {
                return UTType(node: node, in: self)
            }
            let canonical = sharedMIMEInfo?.canonicalMIMEType(bare) ?? bare.lowercased()
            tags.append(DynamicType.Tag(tagClass: .mimeType, value: canonical))
            conformsTo = inheritedTypes(ofMIMEType: canonical)
        default:
            return nil
        }
        let required = supertype ?? "public.data"
        if !conformsTo.contains(where: { conforms($0, to: required) }) {
            conformsTo.insert(required, at: 0)
        }
        guard let identifier = DynamicType(conformsTo: conformsTo, tags: tags).identifier else { return nil }
        return UTType(synthesized: identifier, conformsTo: conformsTo, tags: tags, in: self)
    }

    /// Every declared type that has `tag` and conforms to `supertype` (or any, when `nil`),
    /// in declaration order. Never dynamic types.
    public func types(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: String?) -> [UTType] {
        var nodes = declaredNodes(forTag: tag, tagClass: tagClass, conformingTo: supertype)
        if tagClass == .mimeType, nodes.isEmpty {
            nodes = declaredNodes(forMIMEType: Self.withoutParameters(tag), conformingTo: supertype)
        }
        return nodes.map { UTType(node: $0, in: self) }
    }

    /// Declared nodes with exactly this tag, then (for MIME types) with its canonical form.
    private func declaredNodes(forTag tag: String, tagClass: UTTagClass, conformingTo supertype: String?) -> [Int32] {
        switch tagClass {
        case .filenameExtension:
            return filter(extensionIndex[CaseInsensitiveKey(tag)] ?? [], conformingTo: supertype)
        case .mimeType:
            return declaredNodes(forMIMEType: tag, conformingTo: supertype)
        default:
            return []
        }
    }

    private func declaredNodes(forMIMEType mimeType: String, conformingTo supertype: String?) -> [Int32] {
        let direct = filter(mimeIndex[CaseInsensitiveKey(mimeType)] ?? [], conformingTo: supertype)
        guard direct.isEmpty, let sharedMIMEInfo else { return direct }
        let canonical = sharedMIMEInfo.canonicalMIMEType(mimeType)
        guard !equalIgnoringASCIICase(canonical, mimeType) else { return direct }
        return filter(mimeIndex[CaseInsensitiveKey(canonical)] ?? [], conformingTo: supertype)
    }

    private func filter(_ candidates: [Int32], conformingTo supertype: String?) -> [Int32] {
        guard let supertype else { return candidates }
        guard let target = nodeIndex(of: supertype) else { return [] }
        return candidates.filter { conforms(node: $0, to: target) }
    }

    /// The declared types a MIME type is, through shared-mime-info's sub-class-of relations:
    /// the nearest declared type on each path, found breadth first. Cycles are harmless.
    func inheritedTypes(ofMIMEType mimeType: String) -> [String] {
        guard let sharedMIMEInfo else { return [] }
        var result: [String] = []
        var seen: Set<String> = [sharedMIMEInfo.canonicalMIMEType(mimeType)]
        var frontier = Array(seen)
        var cursor = 0
        while cursor < frontier.count, cursor < 256 {
            for parent in sharedMIMEInfo.superclasses(of: frontier[cursor]) where seen.insert(parent).inserted {
                if let node = mimeIndex[CaseInsensitiveKey(parent)]?.first {
                    let identifier = nodes[Int(node)].declaration.identifier
                    if !result.contains(identifier) { result.append(identifier) }
                } else {
                    frontier.append(parent)
                }
            }
            cursor += 1
        }
        return result
    }

    /// `text/plain; charset=utf-8` → `text/plain`.
    static func withoutParameters(_ mimeType: String) -> String {
        guard let semicolon = mimeType.firstIndex(of: ";") else { return mimeType }
        return String(mimeType[..<semicolon]).trimmingSpaces()
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var slice = self[...]
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        return String(slice)
    }
}
