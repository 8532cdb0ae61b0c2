// Runs the Page Colour extension: NSExtensionMain finds ActionRequestHandler, the principal
// class its Info.plist names, and serves each request with a new instance.
import AppexKit

NSExtensionMain()
