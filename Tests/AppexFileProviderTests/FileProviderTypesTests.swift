import FileProvider
import Testing
import UniformTypeIdentifiers

/// An item that sets two of the optional properties, as Apple-style code does.
private final class NoteItem: NSObject, NSFileProviderItem {
    var itemIdentifier: NSFileProviderItemIdentifier { NSFileProviderItemIdentifier("note") }
    var parentItemIdentifier: NSFileProviderItemIdentifier { .rootContainer }
    var filename: String { "note.txt" }
    var capabilities: NSFileProviderItemCapabilities { [.allowsReading] }
    var documentSize: NSNumber? { 12 }
}

/// An enumerator whose `currentSyncAnchor` takes a handler that is not `@Sendable`, as
/// Xcode's template writes it.
private final class TemplateEnumerator: NSObject, NSFileProviderEnumerator {
    func invalidate() {}
    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage) {
        observer.finishEnumerating(upTo: nil)
    }
    func currentSyncAnchor(completionHandler: @escaping (NSFileProviderSyncAnchor?) -> Void) {
        completionHandler(NSFileProviderSyncAnchor(Data("mine".utf8)))
    }
}

/// The types of `import FileProvider` behave as Apple documents them, and a conforming type's
/// own members, not the defaults, answer for the optional ones.
@Suite struct FileProviderTypesTests {
    @Test func anItemsOwnOptionalPropertiesAreTheOnesUsed() {
        let item: any NSFileProviderItem = NoteItem()
        #expect(item.capabilities == [.allowsReading])
        #expect(item.documentSize == 12)
        #expect(item.contentType == .data)
        #expect(item.isUploaded && !item.isTrashed)
        #expect(item.itemVersion == NSFileProviderItemVersion(contentVersion: Data(), metadataVersion: Data()))
    }

    @Test func anEnumeratorsOwnSyncAnchorIsTheOneUsed() {
        let enumerator: any NSFileProviderEnumerator = TemplateEnumerator()
        nonisolated(unsafe) var anchor: NSFileProviderSyncAnchor?
        enumerator.currentSyncAnchor { anchor = $0 }
        #expect(anchor == NSFileProviderSyncAnchor(Data("mine".utf8)))
    }

    @Test func errorsCarryApplesDomainAndCodes() {
        #expect(NSFileProviderError(.noSuchItem).errorCode == -1005)
        #expect(NSFileProviderError.Code.pageExpired == .syncAnchorExpired)
        let bridged = NSFileProviderError(.deletionRejected) as NSError
        #expect(bridged.domain == NSFileProviderErrorDomain && bridged.code == -1006)
        let missing = NSError.fileProviderErrorForNonExistentItem(withIdentifier: NSFileProviderItemIdentifier("gone"))
        #expect(missing.userInfo[NSFileProviderErrorNonExistentItemIdentifierKey] as? String == "gone")
        do {
            throw missing
        } catch NSFileProviderError.noSuchItem {
            // Apple's pattern, on an NSError of the domain.
        } catch {
            Issue.record("not matched: \(error)")
        }
        do {
            throw NSFileProviderError(.filenameCollision)
        } catch NSFileProviderError.noSuchItem {
            Issue.record("matched the wrong code")
        } catch NSFileProviderError.filenameCollision {
        } catch {
            Issue.record("not matched: \(error)")
        }
    }

    @Test func optionSetsHaveApplesBits() {
        #expect(NSFileProviderItemFields.contents.rawValue == 1 && NSFileProviderItemFields.typeAndCreator.rawValue == 1 << 10)
        #expect(NSFileProviderItemCapabilities.allowsAll.rawValue == 0b111111)
        #expect(NSFileProviderItemCapabilities.allowsAddingSubItems == .allowsWriting)
        #expect(NSFileProviderItemCapabilities.allowsContentEnumerating == .allowsReading)
        #expect(NSFileProviderDeleteItemOptions.recursive.rawValue == 1)
    }

    @Test func progressCanBeMadeAsApplesTemplateMakesIt() {
        let progress: Progress = Progress()
        #expect(progress.totalUnitCount == 0 && !progress.isCancelled)
    }
}
