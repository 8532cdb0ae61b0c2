// Runs the Checksum extension: NSExtensionMain finds ChecksumAction, the principal class its
// Info.plist names, and serves each request with a new instance.
import AppexKit

NSExtensionMain()
