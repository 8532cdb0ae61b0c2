// What an app extension may not use, as on Apple's systems, declared here so that extension
// code that reaches for it fails to compile with the reason, rather than with "cannot find".
// The containing app has the real API in AppexApplication; `appex validate` reports an
// extension executable that links it anyway.

/// Unavailable in an app extension: the shared application object, and with it background
/// tasks. The containing app has it, in AppexApplication.
@available(*, unavailable, message: """
    an app extension may not use the shared application object or its background tasks, as on Apple's systems: \
    open URLs with NSExtensionContext.open(_:completionHandler:), and hand long work to the containing app
    """)
public final class UIApplication {}

/// Unavailable in an app extension: the camera and the microphone. The containing app has
/// them, in AppexApplication.
@available(*, unavailable, message: """
    an app extension may not use the camera or the microphone, as on Apple's systems; the containing app can, \
    with AppexApplication
    """)
public final class AVCaptureDevice {}
