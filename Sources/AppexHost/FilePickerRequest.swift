import AppexWire
import Foundation

/// An extension's request that the user pick files, for the host to show its picker, as
/// Powerbox shows an Open dialog for a sandboxed process on Apple's systems.
///
/// appexd passes it on only for an extension entitled to
/// `com.apple.security.files.user-selected.read-only`, and only to the host of the request it
/// names. The host's ``NSExtension/userFilePickerBlock`` answers with the files the user
/// picked; the host opens each read-only, and appexd hands the extension the descriptors, so
/// it reads those files and nothing else: their paths stay closed to it.
public struct FilePickerRequest: Sendable, Hashable {
    /// The bundle identifier and name of the extension that asks, from the registry.
    public let extensionIdentifier: String
    public let extensionName: String
    /// What to tell the user, such as "Choose a photo to attach"; may be empty.
    public let message: String
    /// The uniform types the user may pick, such as `public.image`; empty for any file.
    /// Files of other types are not handed over.
    public let allowedContentTypes: [String]
    public let allowsMultipleSelection: Bool

    public init(extensionIdentifier: String, extensionName: String, message: String = "", allowedContentTypes: [String] = [],
                allowsMultipleSelection: Bool = false) {
        self.extensionIdentifier = extensionIdentifier
        self.extensionName = extensionName
        self.message = message
        self.allowedContentTypes = allowedContentTypes
        self.allowsMultipleSelection = allowsMultipleSelection
    }

    init(_ asked: PickFiles) {
        self.init(extensionIdentifier: asked.extensionIdentifier, extensionName: asked.extensionName, message: asked.message,
                  allowedContentTypes: asked.allowedTypes, allowsMultipleSelection: asked.allowsMultiple)
    }
}
