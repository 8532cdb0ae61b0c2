// Text Tools: counts words and checksums files, and is the containing app of the Word Count
// and Checksum actions, which do the same for a host's content through the same code.
import Foundation
import TextToolsChecksum
import TextToolsKit

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "count":
    let text = arguments.count > 1
        ? arguments.dropFirst().map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.joined()
        : String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    print(TextStatistics(text).summary)
case "sha256" where arguments.count > 1:
    var failed = false
    for path in arguments.dropFirst() {
        do {
            print(FileChecksum.line(try FileChecksum.sha256(of: URL(fileURLWithPath: path)), name: path))
        } catch {
            FileHandle.standardError.write(Data("texttools: \(path): \(error.localizedDescription)\n".utf8))
            failed = true
        }
    }
    exit(failed ? 1 : 0)
default:
    FileHandle.standardError.write(Data("usage: texttools count [FILE…] | texttools sha256 FILE…\n".utf8))
    exit(2)
}
