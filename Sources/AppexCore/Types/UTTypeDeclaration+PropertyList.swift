extension UTTypeDeclaration {
    /// The most declarations Appex reads from one array. Real apps declare a handful.
    public static let maximumCount = 4096
    /// The most parents (`UTTypeConformsTo`) one declaration may name.
    public static let maximumParentCount = 64
    /// The most tags of one class (extensions or MIME types) one declaration may list.
    public static let maximumTagCount = 256
    /// The longest identifier or tag, in UTF-8 bytes.
    public static let maximumLength = 255
    /// The longest `UTTypeReferenceURL`, in UTF-8 bytes.
    public static let maximumReferenceURLLength = 2048

    /// Reads an `UTExportedTypeDeclarations` or `UTImportedTypeDeclarations` array.
    ///
    /// ```swift
    /// let types = try UTTypeDeclaration.declarations(
    ///     from: info["UTExportedTypeDeclarations"]!, keyPath: "UTExportedTypeDeclarations")
    /// ```
    ///
    /// - Parameters:
    ///   - value: The array, as it appears in the Info.plist.
    ///   - keyPath: Where `value` sits, used as the prefix of every error's key path.
    ///   - kind: Whether the types are exported or imported. When `nil`, a key path ending in
    ///     `UTImportedTypeDeclarations` means imported and anything else exported.
    /// - Throws: ``UTTypeDeclarationError`` for the first problem; use
    ///   ``parse(_:keyPath:kind:)`` to see every problem at once.
    public static func declarations(
        from value: PropertyListValue,
        keyPath: String,
        kind: Kind? = nil
    ) throws(UTTypeDeclarationError) -> [UTTypeDeclaration] {
        let result = parse(value, keyPath: keyPath, kind: kind)
        if let first = result.errors.first { throw first }
        return result.declarations
    }

    /// Reads both `UTExportedTypeDeclarations` and `UTImportedTypeDeclarations` from an Info.plist.
    ///
    /// - Throws: ``UTTypeDeclarationError`` for the first problem in either array.
    public static func declarations(
        fromInfoPlist info: PropertyListValue
    ) throws(UTTypeDeclarationError) -> [UTTypeDeclaration] {
        let result = parse(infoPlist: info)
        if let first = result.errors.first { throw first }
        return result.declarations
    }

    /// Reads both declaration arrays of an Info.plist, keeping every good declaration and
    /// listing every problem, for validators that report all problems at once.
    public static func parse(
        infoPlist info: PropertyListValue
    ) -> (declarations: [UTTypeDeclaration], errors: [UTTypeDeclarationError]) {
        var declarations: [UTTypeDeclaration] = []
        var errors: [UTTypeDeclarationError] = []
        for (key, kind) in [("UTExportedTypeDeclarations", Kind.exported), ("UTImportedTypeDeclarations", .imported)] {
            guard let value = info[key] else { continue }
            let result = parse(value, keyPath: key, kind: kind)
            declarations += result.declarations
            errors += result.errors
        }
        return (declarations, errors)
    }

    /// Reads a declaration array leniently: a declaration with a problem in its identifier
    /// is left out, a bad tag or parent is dropped, and every problem is listed.
    public static func parse(
        _ value: PropertyListValue,
        keyPath: String,
        kind: Kind? = nil
    ) -> (declarations: [UTTypeDeclaration], errors: [UTTypeDeclarationError]) {
        let kind = kind ?? (keyPath.hasSuffix("UTImportedTypeDeclarations") ? .imported : .exported)
        guard let entries = value.arrayValue else {
            return ([], [UTTypeDeclarationError(.wrongKind, keyPath: keyPath, "must be an array of dictionaries, not a \(value.kindName)")])
        }
        var errors: [UTTypeDeclarationError] = []
        if entries.count > maximumCount {
            errors.append(UTTypeDeclarationError(
                .tooMany, keyPath: keyPath,
                "holds \(entries.count) declarations, over the limit of \(maximumCount); only the first \(maximumCount) are read"))
        }
        var declarations: [UTTypeDeclaration] = []
        for (offset, entry) in entries.prefix(maximumCount).enumerated() {
            var reader = Reader(keyPath: "\(keyPath)[\(offset)]")
            if let declaration = reader.declaration(from: entry, kind: kind) {
                declarations.append(declaration)
            }
            errors += reader.errors
        }
        return (declarations, errors)
    }

    /// Whether `identifier` is a well-formed type identifier: non-empty, at most
    /// ``maximumLength`` bytes, made of letters, digits, `-`, `_`, `.` and non-ASCII characters,
    /// with no empty component.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        let bytes = identifier.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        var previous: UInt8 = UInt8(ascii: ".")
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), 0x80...:
                break
            case UInt8(ascii: "."):
                if previous == UInt8(ascii: ".") { return false }
            default:
                return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: ".")
    }
}

/// Reads one declaration dictionary, collecting problems with their key paths.
private struct Reader {
    let keyPath: String
    var errors: [UTTypeDeclarationError] = []

    init(keyPath: String) {
        self.keyPath = keyPath
    }

    mutating func declaration(from entry: PropertyListValue, kind: UTTypeDeclaration.Kind) -> UTTypeDeclaration? {
        guard let dictionary = entry.dictionaryValue else {
            fail(.wrongKind, keyPath, "must be a dictionary with a UTTypeIdentifier, not a \(entry.kindName)")
            return nil
        }
        let identifierPath = "\(keyPath).UTTypeIdentifier"
        guard let identifierValue = dictionary["UTTypeIdentifier"] else {
            fail(.missingKey, identifierPath, "is missing; every declaration needs an identifier such as com.example.app.document")
            return nil
        }
        guard let identifier = identifierValue.stringValue else {
            fail(.wrongKind, identifierPath, "must be a string, not a \(identifierValue.kindName)")
            return nil
        }
        guard UTTypeDeclaration.isValidIdentifier(identifier) else {
            fail(.invalidValue, identifierPath, "\"\(identifier)\" is not a type identifier; use reverse-DNS letters, digits, '-' and '.', such as com.example.app.document")
            return nil
        }

        var declaration = UTTypeDeclaration(identifier: identifier, kind: kind)
        declaration.conformsTo = identifiers(dictionary["UTTypeConformsTo"], at: "\(keyPath).UTTypeConformsTo")
        if let value = dictionary["UTTypeDescription"] {
            if let text = value.stringValue {
                declaration.description = text
            } else {
                fail(.wrongKind, "\(keyPath).UTTypeDescription", "must be a string, not a \(value.kindName)")
            }
        }
        if let value = dictionary["UTTypeReferenceURL"] {
            let path = "\(keyPath).UTTypeReferenceURL"
            if let text = value.stringValue, text.utf8.count <= UTTypeDeclaration.maximumReferenceURLLength {
                declaration.referenceURL = text
            } else if value.stringValue != nil {
                fail(.invalidValue, path, "is longer than \(UTTypeDeclaration.maximumReferenceURLLength) bytes; give the address of a page that describes the type")
            } else {
                fail(.wrongKind, path, "must be a string, not a \(value.kindName)")
            }
        }
        if let value = dictionary["UTTypeVersion"] {
            // Apple's lists give it as a number, or a number written as a string.
            if let number = value.integerValue ?? value.stringValue.flatMap({ Int($0) }) {
                declaration.version = number
            } else {
                fail(.wrongKind, "\(keyPath).UTTypeVersion", "must be a whole number, not \(value.stringValue.map { "\"\($0)\"" } ?? "a \(value.kindName)")")
            }
        }
        if let value = dictionary["UTTypeTagSpecification"] {
            let path = "\(keyPath).UTTypeTagSpecification"
            if let tags = value.dictionaryValue {
                declaration.filenameExtensions = self.tags(
                    tags[UTTagClass.filenameExtension.rawValue], at: "\(path).\(UTTagClass.filenameExtension.rawValue)",
                    isValid: TagSyntax.isValidFilenameExtension, hint: "give the extension without its leading dot, such as \"jpg\"")
                declaration.mimeTypes = self.tags(
                    tags[UTTagClass.mimeType.rawValue], at: "\(path).\(UTTagClass.mimeType.rawValue)",
                    isValid: TagSyntax.isValidMIMEType, hint: "a MIME type looks like \"image/jpeg\"")
            } else {
                fail(.wrongKind, path, "must be a dictionary of tag classes, not a \(value.kindName)")
            }
        }
        return declaration
    }

    private mutating func identifiers(_ value: PropertyListValue?, at path: String) -> [String] {
        let strings = self.strings(value, at: path, limit: UTTypeDeclaration.maximumParentCount, noun: "parents")
        return strings.compactMap { element in
            guard UTTypeDeclaration.isValidIdentifier(element.value) else {
                fail(.invalidValue, element.path, "\"\(element.value)\" is not a type identifier")
                return nil
            }
            return element.value
        }
    }

    private mutating func tags(
        _ value: PropertyListValue?, at path: String, isValid: (String) -> Bool, hint: String
    ) -> [String] {
        let strings = self.strings(value, at: path, limit: UTTypeDeclaration.maximumTagCount, noun: "tags")
        return strings.compactMap { element in
            guard isValid(element.value) else {
                fail(.invalidValue, element.path, "\"\(element.value)\" is not a valid tag; \(hint)")
                return nil
            }
            return element.value
        }
    }

    /// A string or an array of strings, as Apple accepts for `UTTypeConformsTo` and tags.
    private mutating func strings(
        _ value: PropertyListValue?, at path: String, limit: Int, noun: String
    ) -> [(value: String, path: String)] {
        switch value {
        case nil:
            return []
        case .string(let single):
            return [(single, path)]
        case .array(let elements):
            if elements.count > limit {
                fail(.tooMany, path, "lists \(elements.count) \(noun), over the limit of \(limit); only the first \(limit) are read")
            }
            var result: [(value: String, path: String)] = []
            for (offset, element) in elements.prefix(limit).enumerated() {
                if let string = element.stringValue {
                    result.append((string, "\(path)[\(offset)]"))
                } else {
                    fail(.wrongKind, "\(path)[\(offset)]", "must be a string, not a \(element.kindName)")
                }
            }
            return result
        case .some(let other):
            fail(.wrongKind, path, "must be a string or an array of strings, not a \(other.kindName)")
            return []
        }
    }

    private mutating func fail(_ code: UTTypeDeclarationError.Code, _ path: String, _ reason: String) {
        errors.append(UTTypeDeclarationError(code, keyPath: path, reason))
    }
}

/// What a well-formed tag looks like.
enum TagSyntax {
    static func isValidFilenameExtension(_ tag: String) -> Bool {
        let bytes = tag.utf8
        guard !bytes.isEmpty, bytes.count <= UTTypeDeclaration.maximumLength, bytes.first != UInt8(ascii: ".") else { return false }
        return !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "/") || $0 == 0x7F }
    }

    static func isValidMIMEType(_ tag: String) -> Bool {
        let bytes = tag.utf8
        guard bytes.count >= 3, bytes.count <= UTTypeDeclaration.maximumLength,
            let slash = bytes.firstIndex(of: UInt8(ascii: "/")),
            slash != bytes.startIndex, bytes.index(after: slash) != bytes.endIndex
        else { return false }
        return !bytes.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
