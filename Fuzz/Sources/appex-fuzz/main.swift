import AppexFuzzing
import CLibFuzzer
import Foundation

// appex-fuzz TARGET [libFuzzer's flags and corpus folders]
//
// Fuzzes one of FuzzTarget's parsers with libFuzzer. `Fuzz/run` runs each in turn.

var arguments = CommandLine.arguments
let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
guard arguments.count >= 2, let chosen = FuzzTarget(rawValue: arguments.remove(at: 1)) else {
    FileHandle.standardError.write(Data("usage: appex-fuzz TARGET [libFuzzer flags] [corpus folders]; the targets are \(names)\n".utf8))
    exit(2)
}
/// The target every input goes to; libFuzzer's callback can't capture it.
let target = chosen

/// One input, checked by the target. A broken invariant stops the process, so libFuzzer
/// keeps the input as a crash.
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(input)
    } catch {
        fatalError("\(target.rawValue): \(error)")
    }
    return 0
}

var argc = CInt(arguments.count)
var argv = arguments.map { strdup($0) } + [nil]
let status = argv.withUnsafeMutableBufferPointer { buffer in
    var base = buffer.baseAddress
    return LLVMFuzzerRunDriver(&argc, &base) { fuzz($0, $1) }
}
exit(status)
