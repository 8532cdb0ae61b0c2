// Runs the NotesAction extension: NSExtensionMain finds UppercaseAction, the principal class its
// Info.plist names, and serves each request with a new instance.
import AppexKit

NSExtensionMain()
