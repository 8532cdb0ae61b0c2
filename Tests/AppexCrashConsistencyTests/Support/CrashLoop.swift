import AppexSystem
import Foundation

/// Kills a program with SIGKILL before each of its steps in turn (SteppedProgram), and checks
/// after each kill that the stores it was changing are whole, and hold one of the two states
/// around the kill: the one they held when it was killed, or the one the change in flight
/// would have made. Then it runs the program again, as a user would, and checks that this
/// ends where an uninterrupted run does.
struct CrashLoop<State: Hashable> {
    /// What the loop saw.
    struct Report {
        /// The steps of an uninterrupted run, and how many runs were killed.
        var steps = 0
        var kills = 0
        /// Of those, how many left the state as it was at the kill, and how many the change in flight had made.
        var asAtKill = 0
        var advanced = 0
        /// How many kills left the state as before the run, and as at its end.
        var atStart = 0
        var atEnd = 0
        /// The different states the kills left.
        var statesLeft: Set<State> = []
        /// The kills at which no reader could read the database (QuietReader.Unobservable).
        var unobserved = 0
        /// What was wrong, each with the step it was killed before.
        var failures: [String] = []
    }

    var program: SteppedProgram
    /// Puts the stores back as they were before the program's first run.
    var reset: () throws -> Void
    /// The state on disk, read without changing anything, while the program waits at a step.
    var observe: () throws -> State
    /// The state as the next process finds it: after the stores' own recovery, and their
    /// integrity check, which throws if it fails.
    var recover: () throws -> State
    /// Whether `recovered` is `atKill` advanced by the one change that was in flight, given
    /// where an uninterrupted run ends. For a program that makes one change (one transaction,
    /// one rename), that end is the only such state.
    var isNext: (_ recovered: State, _ atKill: State, _ end: State) -> Bool = { recovered, _, end in recovered == end }
    /// Runs the program, or what a user does next, again after a kill that left `recovered`.
    var rerun: (_ recovered: State) throws -> Void
    /// What is wrong once the program has been run again to its end: what the next run
    /// should have cleaned up and didn't.
    var leftovers: () throws -> [String] = { [] }

    func run() throws -> Report {
        var report = Report()
        try reset()
        let whole = try program.run()
        guard whole.status == .exited(0) else {
            report.failures.append("the uninterrupted run ended \(whole.status.map { "\($0)" } ?? "unreaped"): \(whole.output)")
            return report
        }
        report.steps = whole.steps
        let end = try recover()
        try reset()
        let start = try recover()
        for step in 1...max(whole.steps, 1) {
            try reset()
            var observed: State?
            var unobservable = false
            let outcome = try program.run(killedBefore: step) { reached in
                guard reached == step else { return }
                do { observed = try observe() } catch is QuietReader.Unobservable { unobservable = true }
            }
            // A run may make fewer steps than another (a retry, a timer): then nothing was killed.
            guard outcome.wasKilled else { continue }
            report.kills += 1
            let recovered: State
            do {
                recovered = try recover()
            } catch {
                report.failures.append("step \(step): \(error)")
                continue
            }
            report.statesLeft.insert(recovered)
            if recovered == start { report.atStart += 1 }
            if recovered == end { report.atEnd += 1 }
            if let atKill = observed {
                if recovered == atKill {
                    report.asAtKill += 1
                } else if isNext(recovered, atKill, end) {
                    report.advanced += 1
                } else {
                    report.failures.append("step \(step): killed at \(atKill), recovered as \(recovered)")
                }
            } else if unobservable {
                // No reader could look while SQLite built its WAL index (opening) or checkpointed
                // (closing): what was committed then is the state before the run, or at its end.
                report.unobserved += 1
                if recovered != start && recovered != end {
                    report.failures.append("step \(step): killed while the database was opened or closed, recovered as \(recovered)")
                }
            }
            try rerun(recovered)
            let ended = try recover()
            if ended != end { report.failures.append("step \(step): run again, it ended as \(ended), not \(end)") }
            report.failures += try leftovers().map { "step \(step): \($0)" }
        }
        return report
    }
}

extension CrashLoop.Report: Sendable where State: Sendable {}
