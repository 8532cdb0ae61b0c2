// The baseline program of the cold-start and memory benchmarks: a trivial Swift program that
// links Foundation, with the Swift runtime and Foundation linked in statically as extension
// executables are. With no argument it exits at once; with `wait` it says "ready" and waits
// for standard input to close, so its resident memory can be read.
import Foundation

if CommandLine.arguments.dropFirst().first == "wait" {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
}
exit(ProcessInfo.processInfo.processIdentifier > 0 ? 0 : 1)
