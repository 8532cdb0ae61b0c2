// Runs the PhotosShare extension: NSExtensionMain finds AlbumShareHandler, the principal class its
// Info.plist names, and serves each request with a new instance.
import AppexKit

NSExtensionMain()
