import Foundation

extension UTTypeGraph {
    /// The types this process knows, which `UTType(_:)`, the type constants and the tag
    /// lookups use: the system's, and in an extension those installed apps declare, the
    /// containing app's first, as appexd gives them at launch (`APPEX_TYPE_DECLARATIONS`),
    /// so that an app's type is declared in its extensions too, as on Apple's systems.
    /// Elsewhere, the system's alone. Declarations that can't be read are left out, and
    /// said once on standard error.
    public static let process: UTTypeGraph = {
        guard let declared = ProcessInfo.processInfo.environment[typeDeclarationsVariable], !declared.isEmpty else { return system }
        return system.adding(declarations(fromEnvironmentValue: declared))
    }()

    /// The variable appexd passes installed apps' declarations in (`ExtensionEnvironment.typeDeclarations`).
    static let typeDeclarationsVariable = "APPEX_TYPE_DECLARATIONS"

    /// The declarations of an Info.plist-shaped property list, in JSON, every good one kept.
    static func declarations(fromEnvironmentValue value: String) -> [UTTypeDeclaration] {
        do {
            let parsed = UTTypeDeclaration.parse(infoPlist: try JSONDecoder().decode(PropertyListValue.self, from: Data(value.utf8)))
            if let first = parsed.errors.first {
                FileHandle.standardError.write(Data("appex: \(parsed.errors.count) of the installed apps' type declarations were left out; the first: \(first)\n".utf8))
            }
            return parsed.declarations
        } catch {
            FileHandle.standardError.write(Data("appex: the installed apps' type declarations (\(typeDeclarationsVariable)) can't be read, so only the system's types are known: \(error)\n".utf8))
            return []
        }
    }
}
