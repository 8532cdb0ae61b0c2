import AppexCore
import AppexRegistry
import ArgumentParser

struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "Look up uniform types: the system's and those installed apps declare.",
        subcommands: [TypesConformsCommand.self, TypesInfoCommand.self]
    )
}

/// The type graph the commands use: the registry's when it opens, else the system's.
enum InstalledTypes {
    static var graph: UTTypeGraph {
        (try? Registry(home: .current).typeGraph()) ?? .system
    }
}

struct TypesConformsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conforms",
        abstract: "Whether type A conforms to type B. Exit status 0 yes, 1 no."
    )

    @Argument(help: "The type that may conform, such as public.jpeg.")
    var type: String

    @Argument(help: "The type it may conform to, such as public.image.")
    var supertype: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let conforms = InstalledTypes.graph.conforms(type, to: supertype)
        if json {
            try Output.json(["type": .string(type), "supertype": .string(supertype), "conforms": .boolean(conforms)] as PropertyListValue)
        } else {
            print(conforms ? "yes: \(type) conforms to \(supertype)" : "no: \(type) does not conform to \(supertype)")
        }
        if !conforms { throw CommandFailure.silent(CommandFailure.no) }
    }
}

struct TypesInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a type, found by identifier, .extension or MIME/type."
    )

    @Argument(help: "public.jpeg, .jpg or image/jpeg.")
    var query: String

    @Flag(help: "Print JSON.")
    var json = false

    struct Description: Encodable {
        var identifier: String
        var description: String?
        var declared: Bool
        var dynamic: Bool
        var conformsTo: [String]
        var supertypes: [String]
        var filenameExtensions: [String]
        var mimeTypes: [String]
        var referenceURL: String?
        var version: Int?
    }

    func run() throws {
        let graph = InstalledTypes.graph
        let type: UTType?
        if query.hasPrefix(".") {
            type = graph.type(forTag: String(query.dropFirst()), tagClass: .filenameExtension, conformingTo: nil)
        } else if query.contains("/") {
            type = graph.type(forTag: query, tagClass: .mimeType, conformingTo: nil)
        } else {
            type = UTType(query, graph: graph)
        }
        guard let type else {
            throw CommandFailure(status: CommandFailure.no, "no type \(query) is declared (`appex types info .EXT` or MIME/TYPE looks up by tag)")
        }
        let declaration = type.declaration
        let info = Description(
            identifier: type.identifier, description: type.localizedDescription, declared: type.isDeclared, dynamic: type.isDynamic,
            conformsTo: declaration?.conformsTo ?? [], supertypes: type.supertypes.map(\.identifier).sorted(),
            filenameExtensions: type.tags[.filenameExtension] ?? [], mimeTypes: type.tags[.mimeType] ?? [],
            referenceURL: declaration?.referenceURL, version: declaration?.version
        )
        if json { return try Output.json(info) }
        print(info.identifier + (info.description.map { " (\($0))" } ?? ""))
        print("  Declared:     \(info.declared ? "yes" : "no")\(info.dynamic ? ", dynamic" : "")")
        print("  Conforms to:  \(info.conformsTo.joined(separator: ", "))")
        print("  Supertypes:   \(info.supertypes.joined(separator: ", "))")
        print("  Extensions:   \(info.filenameExtensions.joined(separator: ", "))")
        print("  MIME types:   \(info.mimeTypes.joined(separator: ", "))")
        if let referenceURL = info.referenceURL { print("  Reference:    \(referenceURL)") }
        if let version = info.version { print("  Version:      \(version)") }
    }
}
