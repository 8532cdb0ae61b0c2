extension UTTypeDeclaration {
    /// Reads `UTExportedTypeDeclarations` or `UTImportedTypeDeclarations`, recording every problem.
    static func readAll(_ fields: inout PropertyListFields, key: String) -> [UTTypeDeclaration] {
        guard let entries = fields.optionalArray(key) else { return [] }
        var declarations: [UTTypeDeclaration] = []
        for (index, entry) in entries.enumerated() {
            let keyPath = "\(key)[\(index)]"
            guard let dictionary = entry.dictionaryValue else {
                fields.report(.error, "wrong-type", keyPath, "is a \(entry.kindName), but must be a dictionary")
                continue
            }
            var inner = PropertyListFields(dictionary, file: fields.file, keyPathPrefix: fields.keyPath(keyPath))
            defer { fields.diagnostics += inner.diagnostics }
            guard let identifier = inner.requiredString("UTTypeIdentifier", hint: "name the type, such as com.example.notes.note") else {
                continue
            }
            var tags = PropertyListFields(
                inner.optionalDictionary("UTTypeTagSpecification") ?? [:], file: fields.file,
                keyPathPrefix: inner.keyPath("UTTypeTagSpecification")
            )
            declarations.append(UTTypeDeclaration(
                identifier: identifier,
                conformsTo: inner.stringList("UTTypeConformsTo"),
                filenameExtensions: tags.stringList("public.filename-extension").map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 },
                mimeTypes: tags.stringList("public.mime-type"),
                description: inner.optionalString("UTTypeDescription")
            ))
            inner.diagnostics += tags.diagnostics
        }
        return declarations
    }
}

extension UTTypeDeclaration {
    /// This declaration as one entry of `UTExportedTypeDeclarations`.
    public var propertyListValue: PropertyListValue {
        var entry: [String: PropertyListValue] = [
            "UTTypeIdentifier": .string(identifier),
            "UTTypeConformsTo": .array(conformsTo.map(PropertyListValue.string)),
            "UTTypeTagSpecification": .dictionary([
                "public.filename-extension": .array(filenameExtensions.map(PropertyListValue.string)),
                "public.mime-type": .array(mimeTypes.map(PropertyListValue.string)),
            ]),
        ]
        if let description { entry["UTTypeDescription"] = .string(description) }
        return .dictionary(entry)
    }

    /// Reads one entry of `UTExportedTypeDeclarations`, or explains what is wrong with it.
    public static func read(_ value: PropertyListValue, file: String, diagnostics: inout [Diagnostic]) -> UTTypeDeclaration? {
        var fields = PropertyListFields(["entry": .array([value])], file: file)
        defer { diagnostics += fields.diagnostics }
        return readAll(&fields, key: "entry").first
    }
}
