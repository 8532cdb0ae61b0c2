// The PhotosWidget extension's executable. A Today widget needs the widget extension point
// (NCWidgetProviding, snapshots, display modes), which is not built yet, so this program
// says so and exits with EX_UNAVAILABLE rather than pretending to serve a request.
import Foundation

FileHandle.standardError.write(Data("""
    PhotosWidget is a Today widget: appexd launches it for a host's request.
    The widget extension point (NCWidgetProviding) is not available yet, so it can't serve one.

    """.utf8))
exit(69)
