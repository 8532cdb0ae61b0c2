import FileProvider
import UniformTypeIdentifiers

class FileProviderItem: NSObject, NSFileProviderItem {
    private let identifier: NSFileProviderItemIdentifier
    private let size: Int

    init(identifier: NSFileProviderItemIdentifier, size: Int) {
        self.identifier = identifier
        self.size = size
    }

    var itemIdentifier: NSFileProviderItemIdentifier {
        return identifier
    }

    var parentItemIdentifier: NSFileProviderItemIdentifier {
        return .rootContainer
    }

    var capabilities: NSFileProviderItemCapabilities {
        return [.allowsReading, .allowsWriting, .allowsRenaming, .allowsReparenting, .allowsTrashing, .allowsDeleting]
    }

    var itemVersion: NSFileProviderItemVersion {
        NSFileProviderItemVersion(contentVersion: "a content version".data(using: .utf8)!, metadataVersion: "a metadata version".data(using: .utf8)!)
    }

    var filename: String {
        return identifier == .rootContainer ? "Notes" : identifier.rawValue
    }

    var contentType: UTType {
        return identifier == NSFileProviderItemIdentifier.rootContainer ? .folder : .plainText
    }

    var documentSize: NSNumber? {
        return NSNumber(value: size)
    }
}
