// System Monitor: the containing app of the System Load widget. `monitor` prints a reading of
// the system; `monitor --watch` prints one each second. Launched to open monitor://load or
// monitor://memory (the widget's links), it prints that section, and remembers the URL and
// who asked as the one last opened (`monitor opened`).
import AppexApplication
import AppexCore
import Foundation
import MonitorKit

let container = AppexHome.current.container(for: "com.example.monitor")
let openedFile = container.appendingPathComponent("opened.txt")

/// The reading's sections, as monitor:// URLs name them.
enum Section: String, CaseIterable {
    case load, memory

    func lines(_ reading: SystemReading) -> [String] {
        switch self {
        case .load:
            ["Load \(reading.loadText) (1, 5, 15 min) on \(reading.cores) cores, \(reading.tasks) tasks, up \(reading.uptimeText)"]
        case .memory:
            ["Memory \(reading.memoryText) in use (\(Int((reading.memoryUsed * 100).rounded())) %)"]
        }
    }
}

func read() -> SystemReading {
    guard let reading = SystemReading.now() else {
        FileHandle.standardError.write(Data("monitor: /proc/loadavg, /proc/uptime or /proc/meminfo can't be read\n".utf8))
        exit(1)
    }
    return reading
}

func report(_ sections: [Section] = Section.allCases) {
    let reading = read()
    print(reading.clock + "  " + sections.flatMap { $0.lines(reading) }.joined(separator: "\n          "))
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let url = UIApplication.shared.launchOptions[.url] as? URL {
    guard url.scheme == "monitor", let section = url.host.flatMap(Section.init(rawValue:)) else {
        FileHandle.standardError.write(Data("monitor: can't open \(url.absoluteString): the sections are \(Section.allCases.map { "monitor://\($0)" }.joined(separator: ", "))\n".utf8))
        exit(1)
    }
    let source = UIApplication.shared.launchOptions[.sourceApplication] as? String
    print("Opened \(url.absoluteString), from \(source ?? "the user"):")
    report([section])
    do {
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        try "\(url.absoluteString)\t\(source ?? "")\n".write(to: openedFile, atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("monitor: opened \(url.absoluteString) but can't record it in \(container.path): \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
switch arguments.first {
case nil:
    report()
case "--watch":
    while true {
        report()
        fflush(nil)
        sleep(1)
    }
case "opened":
    // The URL last opened through a link, and who asked, tab-separated.
    print((try? String(contentsOf: openedFile, encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? "Nothing opened yet.")
default:
    FileHandle.standardError.write(Data("usage: monitor [--watch | opened]\n".utf8))
    exit(2)
}
