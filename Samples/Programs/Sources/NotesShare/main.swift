// Runs the NotesShare extension: NSExtensionMain finds ShareViewController, the principal class its
// Info.plist names, and serves each request with a new instance.
import AppexKit

NSExtensionMain()
