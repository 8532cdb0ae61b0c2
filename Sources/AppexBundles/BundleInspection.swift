public import AppexCore

/// What reading or validating a bundle found: the bundle, when it could be read, and every problem.
public struct BundleInspection: Sendable {
    /// The app, when its Info.plist and its extensions' could be read. A bundle with errors
    /// may still be returned, so tools can show what it holds.
    public var bundle: AppBundle?
    /// Every problem found, in the order found.
    public var diagnostics: [Diagnostic]

    public init(bundle: AppBundle?, diagnostics: [Diagnostic]) {
        self.bundle = bundle
        self.diagnostics = diagnostics
    }

    /// Whether the bundle can be installed: it was read, and nothing is an error.
    public var isValid: Bool { bundle != nil && !diagnostics.containsErrors }
}
