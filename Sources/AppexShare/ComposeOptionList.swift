/// A list of options that a configuration item pushes onto the compose sheet, for the user
/// to pick one: what an iOS Share extension builds as a table view controller, as data the
/// host can draw.
///
/// ```swift
/// item.tapHandler = { [unowned self] in
///     let list = ComposeOptionList(title: "Folder", options: folders, selected: folders.firstIndex(of: folder))
///     list.didSelect = { [unowned self] index in
///         folder = folders[index]
///         item.value = folder
///         popConfigurationViewController()
///     }
///     pushConfigurationViewController(list)
/// }
/// ```
@MainActor
public final class ComposeOptionList {
    public var title: String { didSet { owner?.setNeedsSheetUpdate() } }
    public var options: [String] { didSet { owner?.setNeedsSheetUpdate() } }
    /// The option shown as chosen.
    public var selected: Int? { didSet { owner?.setNeedsSheetUpdate() } }
    /// Runs with the index of the option the user picks. The list stays until it is popped.
    public var didSelect: (@MainActor (Int) -> Void)?

    weak var owner: SLComposeServiceViewController?

    public init(title: String, options: [String], selected: Int? = nil) {
        self.title = title
        self.options = options
        self.selected = selected
    }

    var state: ComposeSheet.OptionList {
        ComposeSheet.OptionList(title: title, options: options, selected: selected.flatMap { options.indices.contains($0) ? $0 : nil })
    }
}
