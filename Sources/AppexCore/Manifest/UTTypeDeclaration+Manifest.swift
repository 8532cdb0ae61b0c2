extension UTTypeDeclaration {
    /// Reads `UTExportedTypeDeclarations` or `UTImportedTypeDeclarations`, recording every problem.
    static func readAll(_ fields: inout PropertyListFields, key: String) -> [UTTypeDeclaration] {
        guard let value = fields.entries[key] else { return [] }
        let kind: Kind = key == "UTImportedTypeDeclarations" ? .imported : .exported
        let result = parse(value, keyPath: fields.keyPath(key), kind: kind)
        for error in result.errors {
            fields.diagnostics.append(Diagnostic(
                .error, "invalid-type-declaration", file: fields.file, keyPath: error.keyPath, error.reason,
                hint: "declare types as Apple's UTExportedTypeDeclarations do: UTTypeIdentifier, UTTypeConformsTo, UTTypeTagSpecification"
            ))
        }
        return result.declarations
    }

    /// This declaration as one entry of `UTExportedTypeDeclarations`, for storing.
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
        if let referenceURL { entry["UTTypeReferenceURL"] = .string(referenceURL) }
        if let version { entry["UTTypeVersion"] = .integer(version) }
        return .dictionary(entry)
    }
}
