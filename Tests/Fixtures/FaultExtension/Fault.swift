import Foundation

/// How the fault extension behaves, chosen by the `AppexFault` key of its plug-in's
/// `NSExtension` dictionary, so one executable can make every fault the runtime must survive.
enum Fault: String {
    /// Completes with the items it got: each attachment's first type loaded as data, or a
    /// file handed back as the same file.
    case echo
    /// Completes with the types each attachment offers, loading nothing.
    case describe
    /// Loads `public.image` from the first attachment and returns it as `public.jpeg`.
    case image
    /// Aborts before `NSExtensionMain`, so it never checks in.
    case crashAtLaunch
    /// Aborts in `beginRequest(with:)`.
    case crashInRequest
    /// Completes, and aborts once the host has acknowledged the items.
    case crashAfterCompleting
    /// Completes, and aborts as soon as the items are on the socket, before the host reads them.
    case crashAsItCompletes
    /// Sleeps instead of calling `NSExtensionMain`, so it never checks in.
    case neverChecksIn
    /// Receives the request and never answers.
    case neverAnswers
    /// Echoes its first request, then aborts in the second: the second runs on a live
    /// session, which the host sent it on directly.
    case crashInSecondRequest
    /// Echoes its first request, and never answers the second.
    case neverAnswersSecondRequest
    /// Touches memory until appexd ends it.
    case exceedsMemory
    /// Touches 512 MiB in one go, faster than appexd's footprint watch looks.
    case exceedsMemoryAtOnce
    /// Maps 64 GiB of address space without touching it, and completes with the outcome:
    /// "mapped", or "refused: " and the error.
    case mapsHugeAddressSpace
    /// Writes a malformed frame on its session with the host (descriptor 4).
    case garbageOnSession
    /// Writes a malformed frame on its session, then blocks its main thread, so it does not
    /// exit when the host closes the session: only appexd can end it.
    case garbageOnSessionThenHang
    /// Writes a malformed frame on its channel to appexd (descriptor 3).
    case garbageOnControl
    /// Writes the header of a 64-byte frame and 10 bytes of it on its channel to appexd,
    /// then blocks its main thread: the rest never comes.
    case partialFrameOnControl
    /// Greets appexd and checks in as `com.example.someone-else` by hand, before its
    /// runtime starts, then waits.
    case checksInAsAnother
    /// Tries what the text of its first attachment lists, one per line, and completes with
    /// one line each: "allowed", or "refused: " and the error. The attempts: `read PATH`
    /// (open a file or folder for reading), `write PATH` (create a file), `ptrace PID`
    /// (attach), `connect PORT` (TCP to 127.0.0.1), `unix PATH` (a Unix socket by its path),
    /// `socketpair -` (a connected pair), `getfd PID FD` (copy another process's descriptor
    /// through a pidfd), `stat PATH` (whether the path exists), `defaults SUITE` (store `[]`
    /// and `[1, 2]` in a defaults suite, write a property list holding `[]`, and read both
    /// back: "stored [] [1, 2]"), `fork COUNT` (children that wait,
    /// once appexd has moved it into its pids cgroup; a refusal says after how many) and
    /// `group ID` (ask for the group's container, and write `from-extension.txt` in it, in a
    /// coordinated write), `say TEXT` (write TEXT and a newline to standard error, in one
    /// write, or without the newline if TEXT is `-N`: N bytes of `x`) and `pick TYPE PATH` (ask the user for a file of TYPE, `any` for
    /// any; then read it, write through its descriptor, and open PATH, the picked file's own
    /// path: "picked NAME: CONTENT; write: …; path: …", "cancelled", or "refused: " and why),
    /// `openURL URL` (ask appexd to open it for this request: "opened", or "refused: " and
    /// why), and `raw MESSAGE` (write a message straight onto the channel to appexd, past
    /// the runtime, whose answer, if any, the runtime ignores: "sent"; MESSAGE is
    /// `openURL REQUEST URL` or `pickFiles REQUEST`, naming a request's UUID or `self`,
    /// or `beginRequest`, which that channel never carries), and `preview` (load the preview
    /// image of the host's attachment: "preview TEXT"; the answer's attachment then has a
    /// preview of its own, "the extension's preview").
    case attempts
    /// A Share extension's background upload: PUTs the file of its first item's attachment
    /// to the URL on the first line of the item's text, in background session
    /// `com.example.faults.uploads` of the group on the second line, and completes at once
    /// with "uploading as task N", or "refused: " and why.
    case uploadsInBackground
    /// With ``ComposeFault`` as its principal class, a Share extension's compose sheet with
    /// a folder to pick and a 20-character limit; it completes a post with the text and
    /// folder posted.
    case compose
    /// The compose sheet, whose `isContentValid()` never returns once the text has a "!".
    case composeHangsValidating
    /// Under ``ComposeFault``, calls `cancel()` when the text becomes "give up".
    case composeGivesUp
    /// The compose sheet, then a sheet that is not JSON.
    case composeMalformedSheet
    /// A compose sheet with 40 configuration items, more than a sheet may have.
    case composeTooManyItems
    /// A compose sheet whose title, placeholder and folder row hold what a terminal obeys:
    /// a new window title, a cleared screen, a homed cursor and a line of its own.
    case composeDrivesTheTerminal
    /// With ``WidgetFault`` as its principal class, a Today widget: links to `faultapp:` and
    /// `nowhere:` URLs, updates that alternate `.newData` and `.noData`, an expanded mode
    /// 220 points high, margins of 8, and an edit mode.
    case widget
    /// The widget, whose updates fail.
    case widgetFails
    /// The widget, whose updates never answer.
    case widgetHangsUpdating
    /// The widget, whose expanded mode asks for 800 points.
    case widgetTall
    /// The widget, then content that is not JSON.
    case widgetMalformedView
    /// The widget, then content of 400 KB.
    case widgetHugeView
    /// The widget, then a view of 301 views.
    case widgetTooManyViews
    /// Under ``FaultHandler``, an Action that asks to open `faultapp://action`, and completes
    /// with the answer's reason as its content text.
    case opensURL
    /// Keeps the request's context only in a property of its handler, and answers a moment
    /// later through a weak reference to the handler, with the number of requests that
    /// handler has begun and the number begun in the process, as "handler 1 of 2": it
    /// answers only if the system keeps the handler until the request is answered.
    case answersThroughItsHandler
    /// Completes with an item, a string and another item, as `[Any]` allows.
    case returnsAStringAmongItems
    /// Begins an expiring activity (`ProcessInfo.performExpiringActivity`) that works until it
    /// is expired, completes at once, and says on standard error "activity started",
    /// "activity expired" and "activity stopped" as each happens.
    case expiringActivity
    /// Observes the host's lifecycle notifications for its context, and completes, once the
    /// host has become active, with their names, in order, as its item's text, each with
    /// whether its object was the context.
    case observesHost
    /// Writes a line to standard error with a terminal escape sequence and a carriage
    /// return followed by a forged appexd line, then completes.
    case writesControlCharacters

    /// The fault the bundle appexd launched this process from asks for; `echo` if it names none.
    static let current: Fault = {
        guard let bundle = ProcessInfo.processInfo.environment["APPEX_EXTENSION_BUNDLE"],
              let data = FileManager.default.contents(atPath: bundle + "/Info.plist"),
              let info = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let name = (info["NSExtension"] as? [String: Any])?["AppexFault"] as? String
        else { return .echo }
        guard let fault = Fault(rawValue: name) else {
            FileHandle.standardError.write(Data("AppexFaultExtension: unknown AppexFault \(name)\n".utf8))
            exit(64)
        }
        return fault
    }()
}
