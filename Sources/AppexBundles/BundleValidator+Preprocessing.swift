import AppexCore

extension BundleValidator {
    /// The checks of an extension's `NSExtensionJavaScriptPreprocessingFile`: it names a
    /// regular UTF-8 file at the top of the `.appex` folder, no larger than a browser takes,
    /// and belongs to a Share or Action extension, the only ones a browser runs it for.
    func checkPreprocessingFile(of plugIn: ExtensionBundle, file: String) -> [Diagnostic] {
        guard let value = plugIn.manifest.javaScriptPreprocessingFile else { return [] }
        let keyPath = ExtensionManifest.Key.extensionDictionary + "." + ExtensionManifest.Key.attributes + "."
            + ExtensionManifest.Key.javaScriptPreprocessingFile
        var diagnostics: [Diagnostic] = []
        if ![ExtensionPoint.share.id, ExtensionPoint.action.id].contains(plugIn.manifest.pointIdentifier) {
            diagnostics.append(Diagnostic(
                .warning, "preprocessing-file-ignored", file: file, keyPath: keyPath,
                "is set, but only Share and Action extensions get a web page; a browser never runs it for this one",
                hint: "remove the key, or make the extension a Share or Action extension"
            ))
        }
        do throws(PreprocessingFileError) {
            _ = try PreprocessingFile.read(value, inExtensionAt: plugIn.url)
        } catch {
            diagnostics.append(Diagnostic(.error, error.code.rawValue, file: file, keyPath: keyPath, error.reason, hint: error.hint))
        }
        return diagnostics
    }
}
