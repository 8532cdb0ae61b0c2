/// What runs when the user taps a configuration item: Apple's
/// `SLComposeSheetConfigurationItemTapHandler`, on the main actor as Apple's UI is.
public typealias SLComposeSheetConfigurationItemTapHandler = @MainActor () -> Void

/// A row of the compose sheet under the text, such as an account or a folder to post to:
/// Apple's `SLComposeSheetConfigurationItem`.
///
/// Changing a property redraws the row in the host's sheet; there is nothing else to call.
@MainActor
public final class SLComposeSheetConfigurationItem {
    /// Runs when the user taps the row; it may push a list with
    /// ``SLComposeServiceViewController/pushConfigurationViewController(_:)``.
    public typealias TapHandler = SLComposeSheetConfigurationItemTapHandler

    public var title: String? { didSet { owner?.setNeedsSheetUpdate() } }
    public var value: String? { didSet { owner?.setNeedsSheetUpdate() } }
    /// Shows that the value is still being worked out, as Apple's spinner does.
    public var valuePending = false { didSet { owner?.setNeedsSheetUpdate() } }
    public var tapHandler: TapHandler? { didSet { owner?.setNeedsSheetUpdate() } }

    /// The sheet the item is on, told of its changes.
    weak var owner: SLComposeServiceViewController?

    /// Makes a row with nothing in it. Apple's initializer is `init!()`, which can't fail,
    /// so code written for it (`SLComposeSheetConfigurationItem()!`, `if let item = …`,
    /// `item?.title = …`) compiles unchanged, and so does code that uses the item directly.
    public init!() {}

    var state: ComposeSheet.ConfigurationItem {
        ComposeSheet.ConfigurationItem(title: title ?? "", value: value ?? "", valuePending: valuePending, isTappable: tapHandler != nil)
    }
}
