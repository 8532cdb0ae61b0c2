// Runs the NotesWidget extension: NSExtensionMain finds TodayViewController, the principal class its
// Info.plist names, and serves each request with a new instance.
import AppexKit

NSExtensionMain()
