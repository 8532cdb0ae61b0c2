// The NotesShare extension's executable. Extensions run only under appexd, which launches them
// with a request channel; that runtime (NSExtensionMain) is not built yet, so this program
// says so and exits with EX_UNAVAILABLE rather than pretending to serve a request.
import Foundation

FileHandle.standardError.write(Data("""
    NotesShare is an app extension: appexd launches it for a host's request.
    The extension runtime (NSExtensionMain) is not available yet, so it can't run on its own.

    """.utf8))
exit(69)
