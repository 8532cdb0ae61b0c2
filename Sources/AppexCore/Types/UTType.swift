public import Foundation

/// A uniform type: an identifier such as `public.jpeg`, resolved against a ``UTTypeGraph``.
///
/// Mirrors Apple's `UTType`. A type conforms to its parents and, transitively, to theirs;
/// it may carry filename-extension and MIME-type tags. Types for tags no declaration
/// claims are *dynamic*: their identifiers start with `dyn.` and encode the tag.
///
/// ```swift
/// let type = UTType(filenameExtension: "jpg")!      // public.jpeg
/// type.conforms(to: .image)                          // true
/// type.preferredMIMEType                             // "image/jpeg"
/// UTType(mimeType: "application/x-unknown")!.isDynamic  // true
/// ```
///
/// Two types are equal when their identifiers are, ignoring case, whatever graph they
/// were resolved against.
public struct UTType: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// How the identifier resolved against the graph, worked out once so `conforms(to:)` is cheap.
    enum Resolution: Sendable {
        /// A node of the graph: declared, or named as a parent.
        case node(Int32)
        /// Not in the graph, with known parents: a `dyn.` type, or an app's type made with
        /// `exportedAs:conformingTo:` that the graph doesn't declare.
        case synthesized(conformsTo: [String], parents: [Int32], tags: [DynamicType.Tag])
        /// Not in the graph and nothing known about it.
        case unknown
    }

    /// The type's identifier, such as `public.jpeg` or `dyn.a…`.
    public let identifier: String
    /// The graph this type was resolved against.
    public let graph: UTTypeGraph
    /// The graph node, or -1. An integer rather than an enum payload, so the hot path of
    /// ``conforms(to:)`` reads two integers and a copy of a type costs three retains.
    let node: Int32
    /// What is known about a type that is not a graph node.
    let synthesized: Synthesized?

    /// The parents and tags of a type that is not a graph node, boxed to keep `UTType` small.
    final class Synthesized: Sendable {
        let conformsTo: [String]
        let parents: [Int32]
        let tags: [DynamicType.Tag]

        init(conformsTo: [String], parents: [Int32], tags: [DynamicType.Tag]) {
            self.conformsTo = conformsTo
            self.parents = parents
            self.tags = tags
        }
    }

    var resolution: Resolution {
        if node >= 0 { return .node(node) }
        guard let synthesized else { return .unknown }
        return .synthesized(conformsTo: synthesized.conformsTo, parents: synthesized.parents, tags: synthesized.tags)
    }

    /// Resolves any identifier; the caller has checked its syntax.
    init(resolving identifier: String, in graph: UTTypeGraph) {
        self.identifier = identifier
        self.graph = graph
        if let node = graph.nodeIndex(of: identifier) {
            self.node = node
            self.synthesized = nil
            return
        }
        self.node = -1
        if let dynamic = DynamicType(identifier: identifier) {
            self.synthesized = Synthesized(
                conformsTo: dynamic.conformsTo,
                parents: dynamic.conformsTo.compactMap { graph.nodeIndex(of: $0) },
                tags: dynamic.tags)
        } else {
            self.synthesized = nil
        }
    }

    init(synthesized identifier: String, conformsTo: [String], tags: [DynamicType.Tag], in graph: UTTypeGraph) {
        self.identifier = identifier
        self.graph = graph
        self.synthesized = Synthesized(conformsTo: conformsTo, parents: conformsTo.compactMap { graph.nodeIndex(of: $0) }, tags: tags)
        self.node = -1
    }

    /// The type with `identifier`, declared or not; `nil` only if `identifier` is not a
    /// well-formed type identifier (see ``UTTypeDeclaration/isValidIdentifier(_:)``).
    ///
    /// As on Apple's platforms, an undeclared identifier still makes a type, one whose
    /// ``isDeclared`` is false and that conforms only to itself.
    public init?(_ identifier: String, graph: UTTypeGraph) {
        guard UTTypeDeclaration.isValidIdentifier(identifier) else { return nil }
        self.init(resolving: identifier, in: graph)
    }

    /// The type with `identifier` in the process's graph (``UTTypeGraph/process``: in an
    /// extension, the installed apps' types too): Apple's `init?(_:)`, a function of one
    /// argument, so that `identifiers.compactMap(UTType.init)` compiles as on Apple's platforms.
    public init?(_ identifier: String) {
        self.init(identifier, graph: .process)
    }

    /// A type that your app exports in its Info.plist's `UTExportedTypeDeclarations`.
    ///
    /// When the graph doesn't declare it (your app isn't installed in it), the type still
    /// conforms to `parentType`, as Apple's does. A malformed identifier is kept as it is
    /// and conforms only to itself and `parentType`.
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil, graph: UTTypeGraph = .process) {
        if graph.nodeIndex(of: identifier) != nil || parentType == nil {
            self.init(resolving: identifier, in: graph)
        } else {
            self.init(synthesized: identifier, conformsTo: parentType.map { [$0.identifier] } ?? [], tags: [], in: graph)
        }
    }

    /// A type that your app imports in its Info.plist's `UTImportedTypeDeclarations`.
    ///
    /// Behaves like ``init(exportedAs:conformingTo:graph:)``: the graph's declaration if it
    /// has one, else a type that conforms to `parentType`.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil, graph: UTTypeGraph = .process) {
        self.init(exportedAs: identifier, conformingTo: parentType, graph: graph)
    }

    /// The type for a filename extension (without the dot) that conforms to `supertype`.
    ///
    /// Looks in `supertype`'s graph. A declared type is preferred; failing that, the
    /// result is a dynamic type that conforms to `supertype` (and, with shared-mime-info,
    /// to what its MIME type is known to be). `nil` if the extension is empty or malformed.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        guard let type = supertype.graph.type(forFilenameExtension: filenameExtension, conformingTo: supertype.identifier) else { return nil }
        self = type
    }

    /// The type for a MIME type that conforms to `supertype`, declared or dynamic.
    ///
    /// Looks in `supertype`'s graph; see ``init(filenameExtension:conformingTo:)``.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        guard let type = supertype.graph.type(forMIMEType: mimeType, conformingTo: supertype.identifier) else { return nil }
        self = type
    }

    /// The type for a tag of any class that conforms to `supertype`, or to nothing in
    /// particular when `supertype` is `nil` (then the process's graph is used).
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        let graph = supertype?.graph ?? .process
        guard let type = graph.type(forTag: tag, tagClass: tagClass, conformingTo: supertype?.identifier) else { return nil }
        self = type
    }

    /// Every declared type that has `tag` and conforms to `supertype`, in declaration order.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        (supertype?.graph ?? .process).types(forTag: tag, tagClass: tagClass, conformingTo: supertype?.identifier)
    }

    // MARK: Properties

    /// The graph's declaration of this type, if it declares it.
    public var declaration: UTTypeDeclaration? {
        guard case .node(let node) = resolution else { return nil }
        let entry = graph.nodes[Int(node)]
        return entry.origin == .undeclared ? nil : entry.declaration
    }

    /// Whether this is a dynamic type, one made for a tag that no declaration claims.
    public var isDynamic: Bool { DynamicType.isDynamic(identifier) }

    /// Whether the graph declares this type (system, exported or imported).
    public var isDeclared: Bool { declaration != nil }

    /// Whether the identifier is in the `public.` namespace reserved for system types.
    public var isPublic: Bool { hasPrefixIgnoringASCIICase(identifier, "public.") }

    /// Whether the system table (or the trusted list the graph was built from) declares this type.
    public var isSystemDeclared: Bool {
        guard case .node(let node) = resolution else { return false }
        return graph.nodes[Int(node)].origin == .system
    }

    /// The type's tags by class: filename extensions and MIME types, preferred first.
    public var tags: [UTTagClass: [String]] {
        var result: [UTTagClass: [String]] = [:]
        switch resolution {
        case .node(let node):
            let declaration = graph.nodes[Int(node)].declaration
            if !declaration.filenameExtensions.isEmpty { result[.filenameExtension] = declaration.filenameExtensions }
            if !declaration.mimeTypes.isEmpty { result[.mimeType] = declaration.mimeTypes }
        case .synthesized(_, _, let tags):
            for tag in tags { result[tag.tagClass, default: []].append(tag.value) }
        case .unknown:
            break
        }
        return result
    }

    /// The filename extension to give a file of this type, without the dot, if it has one.
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }

    /// The MIME type to label data of this type with, if it has one.
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// The type's human-readable description (`UTTypeDescription`), if it has one.
    ///
    /// Appex has no localizations of its own yet; this is the declared text.
    public var localizedDescription: String? { declaration?.description }

    /// The address of a document that describes the type (`UTTypeReferenceURL`), if its
    /// declaration gives one. Most types have none; as on Apple's systems, it is not checked.
    public var referenceURL: URL? { declaration?.referenceURL.flatMap { URL(string: $0) } }

    /// The type's version (`UTTypeVersion`), if its declaration gives one. Most types have none.
    public var version: Int? { declaration?.version }

    /// The identifier, as Apple's `UTType.description` gives it.
    public var description: String { identifier }

    /// The identifier, plus the type's tags and whether it is declared, for debugging.
    public var debugDescription: String {
        var parts = [identifier]
        if let extensionTag = preferredFilenameExtension { parts.append(".\(extensionTag)") }
        if let mime = preferredMIMEType { parts.append(mime) }
        if isDynamic { parts.append("dynamic") } else if !isDeclared { parts.append("undeclared") }
        return "<UTType \(parts.joined(separator: " "))>"
    }

    /// Every type this one conforms to, directly or transitively, without itself.
    public var supertypes: Set<UTType> {
        switch resolution {
        case .node(let node):
            return Set(graph.ancestors(of: node).map { UTType(node: $0, in: graph) })
        case .synthesized(let conformsTo, _, _):
            var result: Set<UTType> = []
            for parent in conformsTo {
                let type = UTType(resolving: parent, in: graph)
                result.insert(type)
                result.formUnion(type.supertypes)
            }
            return result
        case .unknown:
            return []
        }
    }

    init(node: Int32, in graph: UTTypeGraph) {
        self.identifier = graph.nodes[Int(node)].declaration.identifier
        self.graph = graph
        self.node = node
        self.synthesized = nil
    }

    // MARK: Conformance

    /// Whether this type is `type` or conforms to it, directly or transitively.
    ///
    /// Fast: for two types of the same graph this is an integer set lookup.
    public func conforms(to type: UTType) -> Bool {
        if node >= 0, type.node >= 0, graph === type.graph {
            return graph.conforms(node: node, to: type.node)
        }
        let target: Int32?
        if graph === type.graph, case .node(let node) = type.resolution {
            target = node
        } else {
            target = graph.nodeIndex(of: type.identifier)
        }
        switch resolution {
        case .node(let node):
            guard let target else { return false }
            return graph.conforms(node: node, to: target)
        case .synthesized(let conformsTo, let parents, _):
            if equalIgnoringASCIICase(identifier, type.identifier) { return true }
            if let target, parents.contains(where: { graph.conforms(node: $0, to: target) }) { return true }
            return conformsTo.contains { equalIgnoringASCIICase($0, type.identifier) }
        case .unknown:
            return equalIgnoringASCIICase(identifier, type.identifier)
        }
    }

    /// Whether `type` conforms to this type and is not this type.
    public func isSupertype(of type: UTType) -> Bool {
        self != type && type.conforms(to: self)
    }

    /// Whether this type conforms to `type` and is not `type`.
    public func isSubtype(of type: UTType) -> Bool {
        self != type && conforms(to: type)
    }

    // MARK: Equality

    /// Whether two types have the same identifier, ignoring case.
    public static func == (lhs: UTType, rhs: UTType) -> Bool {
        equalIgnoringASCIICase(lhs.identifier, rhs.identifier)
    }

    /// Hashes the identifier, ignoring case.
    public func hash(into hasher: inout Hasher) {
        CaseInsensitiveKey(identifier).hash(into: &hasher)
    }
}
