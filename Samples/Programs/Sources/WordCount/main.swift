// Runs the WordCount extension: NSExtensionMain finds WordCountAction, the principal class its
// Info.plist names, and serves each request with a new instance.
import AppexKit

NSExtensionMain()
