import AppexGroups
import AppexTesting
import Foundation
import Testing

/// Code that forwards a coordinator's error pointer names Apple's `NSErrorPointer`, which
/// Foundation on Linux lacks and AppexGroups declares.
struct NSErrorPointerTests {
    /// A helper as Apple-style code writes one: it passes its caller's pointer on.
    func replace(_ url: URL, with text: String, by coordinator: NSFileCoordinator = NSFileCoordinator(), error: NSErrorPointer) {
        coordinator.coordinate(writingItemAt: url, options: .forReplacing, error: error) { url in
            try? Data(text.utf8).write(to: url)
        }
    }

    @Test func aPointerIsForwardedAndFilled() throws {
        let folder = try TemporaryDirectory()
        let file = folder.url.appendingPathComponent("note.txt")
        var error: NSError?
        replace(file, with: "hello", error: &error)
        #expect(error == nil && (try? String(contentsOf: file, encoding: .utf8)) == "hello")
        let cancelled = NSFileCoordinator()
        cancelled.cancel()
        replace(file, with: "never", by: cancelled, error: &error)
        #expect(error?.code == NSUserCancelledError, "the error reached the caller's pointer: \(String(describing: error))")
        replace(file, with: "again", error: nil)
        #expect((try? String(contentsOf: file, encoding: .utf8)) == "again")
    }
}
