import AppexCore
public import Foundation

// Apple's C functions over type identifiers (UTType.h of MobileCoreServices and CoreServices),
// each answered by the system graph through `UTType`. Apple deprecated them for `UTType` in
// iOS 15; extension code still calls them. What Apple returns as a `CFString` or `CFArray`
// the caller owns comes wrapped in ``CFOwned``, so `…?.takeRetainedValue()` reads as it does
// on Apple.

/// Filename extensions, without the dot: `jpg`.
public let kUTTagClassFilenameExtension: CFString = UTTagClass.filenameExtension.rawValue
/// MIME types: `image/jpeg`.
public let kUTTagClassMIMEType: CFString = UTTagClass.mimeType.rawValue
/// Classic Mac OS pasteboard types: no type of Appex's graph has one.
public let kUTTagClassNSPboardType: CFString = "com.apple.nspboard-type"
/// Classic Mac OS four-character codes: no type of Appex's graph has one.
public let kUTTagClassOSType: CFString = "com.apple.ostype"

/// The Info.plist keys of type declarations.
public let kUTExportedTypeDeclarationsKey: CFString = "UTExportedTypeDeclarations"
public let kUTImportedTypeDeclarationsKey: CFString = "UTImportedTypeDeclarations"
public let kUTTypeIdentifierKey: CFString = "UTTypeIdentifier"
public let kUTTypeTagSpecificationKey: CFString = "UTTypeTagSpecification"
public let kUTTypeConformsToKey: CFString = "UTTypeConformsTo"
public let kUTTypeDescriptionKey: CFString = "UTTypeDescription"
public let kUTTypeIconFileKey: CFString = "UTTypeIconFile"
public let kUTTypeReferenceURLKey: CFString = "UTTypeReferenceURL"
public let kUTTypeVersionKey: CFString = "UTTypeVersion"

/// Apple's `CFArray` of strings, as these functions return it.
public typealias CFArray = [CFString]
/// Apple's `CFDictionary`, toll-free bridged with `NSDictionary` as on Apple's systems, so
/// `as? [String: Any]` and `as NSDictionary` read as they do there.
public typealias CFDictionary = NSDictionary
/// Apple's `CFURL`, bridged with `URL` by `as URL`.
public typealias CFURL = NSURL

/// A value the caller owns, as Apple's `Unmanaged` of a Core Foundation object that a
/// "Copy" or "Create" function returns: Swift manages the memory, so both ways to take it
/// give the value.
public struct CFOwned<Value> {
    private let value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// The value, which the caller owns.
    public func takeRetainedValue() -> Value { value }
    /// The value.
    public func takeUnretainedValue() -> Value { value }
    /// Does nothing: Swift manages the memory.
    public func release() {}
}

extension CFOwned: Sendable where Value: Sendable {}

/// Whether `inUTI` is `inConformsToUTI` or conforms to it.
public func UTTypeConformsTo(_ inUTI: CFString, _ inConformsToUTI: CFString) -> Bool {
    guard let type = UTType(inUTI), let other = UTType(inConformsToUTI) else { return inUTI == inConformsToUTI }
    return type.conforms(to: other)
}

/// Whether the two identifiers name the same type.
public func UTTypeEqual(_ inUTI1: CFString, _ inUTI2: CFString) -> Bool {
    guard let first = UTType(inUTI1), let second = UTType(inUTI2) else { return inUTI1 == inUTI2 }
    return first == second
}

/// Whether the system graph, or an installed app, declares the type.
public func UTTypeIsDeclared(_ inUTI: CFString) -> Bool {
    UTType(inUTI)?.isDeclared ?? false
}

/// Whether the identifier is a dynamic one (`dyn.…`), made for a tag no type declares.
public func UTTypeIsDynamic(_ inUTI: CFString) -> Bool {
    UTType(inUTI)?.isDynamic ?? false
}

/// The type for the tag `inTag` of class `inTagClass` that conforms to `inConformingToUTI`:
/// a declared one if there is one, else a dynamic one.
public func UTTypeCreatePreferredIdentifierForTag(_ inTagClass: CFString, _ inTag: CFString,
                                                  _ inConformingToUTI: CFString?) -> CFOwned<CFString>? {
    UTType(tag: inTag, tagClass: UTTagClass(rawValue: inTagClass), conformingTo: inConformingToUTI.flatMap { UTType($0) })
        .map { CFOwned($0.identifier) }
}

/// Every type for the tag `inTag` of class `inTagClass` that conforms to `inConformingToUTI`.
public func UTTypeCreateAllIdentifiersForTag(_ inTagClass: CFString, _ inTag: CFString,
                                             _ inConformingToUTI: CFString?) -> CFOwned<CFArray>? {
    let types = UTType.types(tag: inTag, tagClass: UTTagClass(rawValue: inTagClass), conformingTo: inConformingToUTI.flatMap { UTType($0) })
    return CFOwned(types.map(\.identifier))
}

/// The type's preferred tag of class `inTagClass`, such as its filename extension.
public func UTTypeCopyPreferredTagWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> CFOwned<CFString>? {
    UTType(inUTI)?.tags[UTTagClass(rawValue: inTagClass)]?.first.map { CFOwned($0) }
}

/// Every tag of class `inTagClass` the type has, preferred first.
public func UTTypeCopyAllTagsWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> CFOwned<CFArray>? {
    UTType(inUTI)?.tags[UTTagClass(rawValue: inTagClass)].map { CFOwned($0) }
}

/// The type's description, such as "JPEG image".
public func UTTypeCopyDescription(_ inUTI: CFString) -> CFOwned<CFString>? {
    UTType(inUTI)?.localizedDescription.map { CFOwned($0) }
}

/// The type's declaration, as the dictionary an Info.plist's `UTExportedTypeDeclarations`
/// holds: `kUTTypeIdentifierKey`, `kUTTypeConformsToKey`, `kUTTypeTagSpecificationKey`, and
/// `kUTTypeDescriptionKey`, `kUTTypeReferenceURLKey` and `kUTTypeVersionKey` where it has
/// them. `nil` for a type that nobody declares, a dynamic one among them.
public func UTTypeCopyDeclaration(_ inUTI: CFString) -> CFOwned<CFDictionary>? {
    guard let declaration = UTType(inUTI)?.declaration else { return nil }
    var tags: [String: [String]] = [:]
    if !declaration.filenameExtensions.isEmpty { tags[kUTTagClassFilenameExtension] = declaration.filenameExtensions }
    if !declaration.mimeTypes.isEmpty { tags[kUTTagClassMIMEType] = declaration.mimeTypes }
    var entry: [String: Any] = [
        kUTTypeIdentifierKey: declaration.identifier,
        kUTTypeConformsToKey: declaration.conformsTo,
        kUTTypeTagSpecificationKey: tags,
    ]
    if let description = declaration.description { entry[kUTTypeDescriptionKey] = description }
    if let referenceURL = declaration.referenceURL { entry[kUTTypeReferenceURLKey] = referenceURL }
    if let version = declaration.version { entry[kUTTypeVersionKey] = version }
    return CFOwned(entry as NSDictionary)
}

/// The bundle that declares the type. **Differs**: Appex's system types are compiled into
/// AppexCore rather than kept in a bundle such as Apple's `CoreTypes.bundle`, and an
/// extension is given apps' declarations but not their bundles, so this is always `nil`, as
/// Apple's is for a type that nothing declares; read the declaration with
/// ``UTTypeCopyDeclaration(_:)``.
public func UTTypeCopyDeclaringBundleURL(_ inUTI: CFString) -> CFOwned<CFURL>? {
    nil
}
