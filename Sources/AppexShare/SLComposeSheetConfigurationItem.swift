/// A row of the compose sheet under the text, such as an account or a folder to post to:
/// Apple's `SLComposeSheetConfigurationItem`.
///
/// Changing a property redraws the row in the host's sheet; there is nothing else to call.
@MainActor
public final class SLComposeSheetConfigurationItem {
    /// Runs when the user taps the row; it may push a list with
    /// ``SLComposeServiceViewController/pushConfigurationViewController(_:)``.
    public typealias TapHandler = @MainActor () -> Void

    public var title: String? { didSet { owner?.setNeedsSheetUpdate() } }
    public var value: String? { didSet { owner?.setNeedsSheetUpdate() } }
    /// Shows that the value is still being worked out, as Apple's spinner does.
    public var valuePending = false { didSet { owner?.setNeedsSheetUpdate() } }
    public var tapHandler: TapHandler? { didSet { owner?.setNeedsSheetUpdate() } }

    /// The sheet the item is on, told of its changes.
    weak var owner: SLComposeServiceViewController?

    public init() {}

    var state: ComposeSheet.ConfigurationItem {
        ComposeSheet.ConfigurationItem(title: title ?? "", value: value ?? "", valuePending: valuePending, isTappable: tapHandler != nil)
    }
}
