// A process of an app group, for the tests of shared defaults and group containers: the
// other side of what a test does in its own process. Each command prints its result.
//
//   increment CONTAINER SUITE KEY COUNT   adds 1 to KEY, COUNT times, with update(forKey:)
//   pairs CONTAINER SUITE                 writes {n, copy: n} to "pair" for n = 1, 2, … for ever
//   set CONTAINER SUITE KEY VALUE         sets KEY to the string VALUE
//   get CONTAINER SUITE KEY               prints KEY's value
//   foundation-set CONTAINER SUITE KEY VALUE  sets KEY to the string VALUE through Foundation's
//                                         UserDefaults(suiteName:), mirrored, and exits after flush()
//   foundation-watch CONTAINER SUITE KEY VALUE  prints "ready", then waits until Foundation's
//                                         UserDefaults(suiteName:), mirrored, shows KEY at VALUE, and prints "seen"
//   wait-for CONTAINER SUITE KEY VALUE    prints "ready", then waits until a didChangeNotification
//                                         shows KEY at VALUE, and prints "seen"
//   container GROUP                       prints containerURL(forSecurityApplicationGroupIdentifier:), or "nil"
//   coordinated-add FILE COUNT            adds 1 to the number in FILE, COUNT times, each a coordinated
//                                         write that truncates the file and then writes it
//   coordinated-fill FILE COUNT SIZE      rewrites FILE COUNT times in a coordinated write, in place and
//                                         in 4 KiB pieces, as SIZE copies of one byte, another each time
//   present ITEM answer|hold|fail-save    registers a file presenter of ITEM, prints "presenting", then each
//                                         message it hears, until killed (PresenterCommands.swift)
//   add-version ITEM TEXT                 keeps TEXT as a version of ITEM (NSFileVersion), and prints "added"
//   coordinated-write FILE TEXT           writes TEXT to FILE in a coordinated write, and prints "written"
//   hold-write FILE                       prints "holding" from inside a coordinated write of FILE, and
//                                         waits there for ever
//   sqlite-add DATABASE COUNT             COUNT write transactions on DATABASE, opened as docs/app-groups.md
//                                         recommends, each adding a row and 1 to the counter
//   sqlite-hold DATABASE                  prints "holding" from inside a write transaction, and waits there for ever
//   widget-content WIDGET true|false      NCWidgetController's updateHasContent for WIDGET: prints "kept",
//                                         or the error
//   transfer-attach SESSION GROUP         makes the background session (AppexTransfers' URLSession), prints
//                                         "attached", and stays attached until standard input closes
//                                         (TransferCommands.swift); a refusal prints "refused DOMAIN CODE: …"
//   transfer-upload SESSION GROUP URL FILE [wait|cancel]  makes and resumes a PUT upload of FILE, prints
//                                         "created N", and exits; with `wait` prints its progress and events
//                                         until it completes, with `cancel` cancels it first; HELPER_HEADER,
//                                         "NAME:VALUE" percent-encoded, adds a header field
//   transfer-download SESSION GROUP URL [wait|cancel|cancel-resumable]  the same for a download of URL;
//                                         `cancel-resumable` waits for its first bytes, and cancels it with
//                                         cancel(byProducingResumeData:), printing "resume data" or "no resume data";
//                                         resume data, given or in an error, goes to HELPER_RESUME_DATA
//   transfer-data SESSION GROUP URL       asks the background session for a data task with a completion
//                                         handler, and prints "refused DOMAIN CODE: …" (TransferCommands.swift)
//   in-process-get URL                    gets URL with URLSession.shared, which this program can't without
//                                         AppexNetworking: prints "got N bytes" or "refused DOMAIN CODE: …"
//   transfer-resume SESSION GROUP FILE    makes and resumes a download from the resume data in FILE, and prints
//                                         its progress and events until it completes
//   transfer-events SESSION GROUP         prints the events that waited for the session, then "finished
//                                         events", and detaches once they are acknowledged
//   transfer-tasks SESSION GROUP          prints "tasks" and " N PATH" for each unfinished task, and exits
//   transfer-raw-create SESSION GROUP KIND URL FILES  sends TransferCreate past the session API with FILES
//                                         descriptors, and prints "created N" or "refused DOMAIN CODE: …"
//   (none, launched by appexd for a background session's events)  answers as TransferCommands.swift's
//                                         answerWakeForEvents says
import AppexGroups
import AppexToday
import Foundation
import GRDB

func defaults(_ container: String, _ suite: String) -> GroupDefaults {
    guard let defaults = GroupDefaults(suiteName: suite, container: URL(fileURLWithPath: container)) else { exit(70) }
    return defaults
}

/// A coordinated write of `file`; a coordination that fails ends the process, saying why.
func coordinatedWrite(_ file: String, _ writer: (URL) -> Void) {
    var error: NSError?
    NSFileCoordinator().coordinate(writingItemAt: URL(fileURLWithPath: file), error: &error, byAccessor: writer)
    if let error {
        FileHandle.standardError.write(Data("\(error.localizedDescription)\n".utf8))
        exit(75)
    }
}

/// Prints a line at once, unbuffered, for the test that waits on it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

if answerWakeForEvents() { exit(0) }

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("increment", 5):
    let shared = defaults(arguments[1], arguments[2])
    for _ in 0..<(Int(arguments[4]) ?? 0) {
        shared.update(forKey: arguments[3]) { (($0 as? Int) ?? 0) + 1 }
    }
    say("done")
case ("pairs", 3):
    let shared = defaults(arguments[1], arguments[2])
    var n = 0
    while true {
        n += 1
        shared.set(["n": n, "copy": n], forKey: "pair")
        if n == 1 { say("started") }
    }
case ("set", 5):
    defaults(arguments[1], arguments[2]).set(arguments[4], forKey: arguments[3])
    say("set")
case ("get", 4):
    say(defaults(arguments[1], arguments[2]).object(forKey: arguments[3]).map { "\($0)" } ?? "nil")
case ("foundation-set", 5):
    FoundationGroupSuites.mirror(defaults(arguments[1], arguments[2]))
    UserDefaults(suiteName: arguments[2])?.set(arguments[4], forKey: arguments[3])
    FoundationGroupSuites.flush()
    say("set")
case ("foundation-watch", 5):
    FoundationGroupSuites.mirror(defaults(arguments[1], arguments[2]))
    say("ready")
    for _ in 0..<2_000 where UserDefaults(suiteName: arguments[2])?.string(forKey: arguments[3]) != arguments[4] {
        usleep(10_000)
    }
    say(UserDefaults(suiteName: arguments[2])?.string(forKey: arguments[3]) == arguments[4] ? "seen" : "not seen")
case ("wait-for", 5):
    nonisolated(unsafe) let shared = defaults(arguments[1], arguments[2]) // GroupDefaults is thread-safe
    let (key, value) = (arguments[3], arguments[4])
    let seen = DispatchSemaphore(value: 0)
    let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: shared, queue: nil) { _ in
        if shared.string(forKey: key) == value { seen.signal() }
    }
    say("ready")
    if shared.string(forKey: key) != value { seen.wait() }
    say("seen")
    NotificationCenter.default.removeObserver(observer)
case ("container", 2):
    say(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: arguments[1])?.path ?? "nil")
case ("coordinated-add", 3):
    for _ in 0..<(Int(arguments[2]) ?? 0) {
        coordinatedWrite(arguments[1]) { url in
            let number = (try? String(contentsOf: url, encoding: .utf8)).flatMap { Int($0) } ?? 0
            guard let handle = FileHandle(forWritingAtPath: url.path) else { exit(73) }
            handle.truncateFile(atOffset: 0)
            handle.write(Data(String(number + 1).utf8))
            handle.closeFile()
        }
    }
    say("done")
case ("coordinated-fill", 4):
    let size = Int(arguments[3]) ?? 0
    for generation in 0..<(Int(arguments[2]) ?? 0) {
        coordinatedWrite(arguments[1]) { url in
            guard let handle = FileHandle(forWritingAtPath: url.path) else { exit(73) }
            let piece = Data(repeating: UInt8(truncatingIfNeeded: generation), count: 4096)
            for _ in 0..<(size / piece.count) { handle.write(piece) }
            handle.closeFile()
        }
        if generation == 0 { say("started") }
    }
    say("done")
case ("present", 3):
    present(arguments[1], mode: arguments[2])
case ("add-version", 3):
    addVersion(arguments[1], arguments[2])
case ("coordinated-write", 3):
    coordinatedWriteOnce(arguments[1], arguments[2])
case ("hold-write", 2):
    coordinatedWrite(arguments[1]) { _ in
        say("holding")
        while true { pause() }
    }
case ("sqlite-add", 3):
    do {
        let database = try SharedDatabase.open(arguments[1])
        for _ in 0..<(Int(arguments[2]) ?? 0) { try SharedDatabase.add(to: database, by: "helper") }
        say("done")
    } catch {
        say("error: \(error)")
        exit(74)
    }
case ("sqlite-hold", 2):
    do {
        let database = try SharedDatabase.open(arguments[1])
        try database.write { db in
            try db.execute(sql: "INSERT INTO note (writer) VALUES ('holder')")
            say("holding")
            while true { pause() }
        }
    } catch {
        say("error: \(error)")
        exit(74)
    }
case ("widget-content", 3):
    do {
        try NCWidgetController.widgetController().updateHasContent(arguments[2] == "true", forWidgetWithBundleIdentifier: arguments[1])
        say("kept")
    } catch {
        say("\(error)")
    }
case ("transfer-attach", 3):
    transferAttach(arguments[1], arguments[2])
case ("transfer-upload", 5), ("transfer-upload", 6):
    transferTask("upload", arguments[1], arguments[2], arguments[3], file: arguments[4], then: arguments.count == 6 ? arguments[5] : nil)
case ("transfer-download", 4), ("transfer-download", 5):
    transferTask("download", arguments[1], arguments[2], arguments[3], file: nil, then: arguments.count == 5 ? arguments[4] : nil)
case ("transfer-data", 4):
    transferData(arguments[1], arguments[2], arguments[3])
case ("in-process-get", 2):
    inProcessGet(arguments[1])
case ("transfer-resume", 4):
    transferResume(arguments[1], arguments[2], arguments[3])
case ("transfer-events", 3):
    transferEvents(arguments[1], arguments[2])
case ("transfer-tasks", 3):
    transferTasks(arguments[1], arguments[2])
case ("transfer-raw-create", 6):
    transferRawCreate(arguments[1], arguments[2], arguments[3], arguments[4], files: Int(arguments[5]) ?? 0)
default:
    FileHandle.standardError.write(Data("usage: see the top of Tests/Fixtures/GroupsHelper/main.swift\n".utf8))
    exit(64)
}
