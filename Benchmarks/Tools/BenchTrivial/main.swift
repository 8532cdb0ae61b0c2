// The baseline program of the cold-start and memory benchmarks: a trivial Swift program that
// links Foundation, with the Swift runtime and Foundation linked in statically as extension
// executables are. With no argument it exits at once; with `stamp` it first prints when its
// top-level code started (CLOCK_MONOTONIC, nanoseconds); with `wait` it says "ready" and
// waits for standard input to close, so its resident memory can be read.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

var started = timespec()
clock_gettime(CLOCK_MONOTONIC, &started)
switch CommandLine.arguments.dropFirst().first {
case "stamp":
    FileHandle.standardOutput.write(Data("\(UInt64(started.tv_sec) * 1_000_000_000 + UInt64(started.tv_nsec))\n".utf8))
case "wait":
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
default:
    break
}
exit(ProcessInfo.processInfo.processIdentifier > 0 ? 0 : 1)
