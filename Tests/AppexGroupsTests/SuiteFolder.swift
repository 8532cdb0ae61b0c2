import AppexGroups
import AppexTesting
import Foundation
import Testing

/// A fresh container, removed afterwards, and the suite the tests share in it.
final class SuiteFolder {
    let folder: TemporaryDirectory
    let suite = "group.com.example.tests"

    init() throws {
        folder = try TemporaryDirectory()
    }

    var url: URL { folder.url }

    /// A `GroupDefaults` of the suite, as a process of the group would open it.
    func open(sourceLocation: SourceLocation = #_sourceLocation) throws -> GroupDefaults {
        try #require(GroupDefaults(suiteName: suite, container: folder.url), sourceLocation: sourceLocation)
    }
}
