public import Foundation

/// Where a method puts the error it failed with, as Apple's `NSErrorPointer`, which
/// Foundation on Linux does not declare: `var error: NSError?` passed as `&error`, or `nil`.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
