public import Foundation

/// A progress with no parent and no units yet, as `NSProgress`'s `init` makes on Apple's
/// platforms, where Xcode's File Provider template answers every call with `return Progress()`.
///
/// swift-corelibs-foundation's `Progress` has no `init()`, and an extension can't add one
/// (it would override `NSObject`'s). A call `Progress()` finds no initializer of the type and
/// resolves to this function instead; `Progress` as a type, and its own initializers, are untouched.
public func Progress() -> Foundation.Progress {
    Foundation.Progress(parent: nil, userInfo: nil)
}
