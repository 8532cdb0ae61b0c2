public import Foundation

/// What Apple's `UIViewController` gives the principal class of an extension with a view,
/// apart from drawing: the request's ``extensionContext``, and the view's life, from
/// ``viewDidLoad()`` through ``viewWillAppear(_:)``, ``viewDidAppear(_:)``,
/// ``viewWillDisappear(_:)`` and ``viewDidDisappear(_:)``.
///
/// The host draws the view from state the point's subclass sends it (the compose sheet of
/// `SLComposeServiceViewController`, a widget's `WidgetView`), so there is no view object;
/// the methods run on the main thread when the host shows and takes away what it draws, in
/// the order UIKit calls them. Each request gets its own controller, so each appears once.
/// Overrides call `super`, as UIKit asks.
@MainActor
open class ExtensionViewController: NSObject {
    /// The request this controller serves, from its `beginRequest(with:)`.
    public package(set) var extensionContext: NSExtensionContext?
    /// Where the view is in its life.
    package private(set) var appearance = Appearance.notLoaded

    /// Where a view is in its life.
    package enum Appearance {
        case notLoaded, loaded, appeared, disappeared
    }

    /// Makes the controller; the request's `beginRequest(with:)` attaches it.
    public override init() {
        super.init()
    }

    /// The view is about to be shown for the first time, with the request's state set: set
    /// it up here.
    open func viewDidLoad() {}

    /// The host is about to show the view. `animated` is true, as for a presented sheet.
    open func viewWillAppear(_ animated: Bool) {}

    /// The host shows the view.
    open func viewDidAppear(_ animated: Bool) {}

    /// The host is about to take the view away: the user posted, cancelled or closed it.
    open func viewWillDisappear(_ animated: Bool) {}

    /// The host no longer shows the view.
    open func viewDidDisappear(_ animated: Bool) {}

    /// Runs the view's life up to shown: ``viewDidLoad()`` (once), ``viewWillAppear(_:)``,
    /// then `show`, which sends the host what it draws, then ``viewDidAppear(_:)``.
    package func appear(showing show: () -> Void) {
        guard appearance == .notLoaded || appearance == .loaded else { return }
        if appearance == .notLoaded {
            appearance = .loaded
            viewDidLoad()
        }
        viewWillAppear(true)
        show()
        appearance = .appeared
        viewDidAppear(true)
    }

    /// Takes the view away, if it was shown: ``viewWillDisappear(_:)``, then ``viewDidDisappear(_:)``.
    package func disappear() {
        guard appearance == .appeared else { return }
        appearance = .disappeared
        viewWillDisappear(true)
        viewDidDisappear(true)
    }
}
