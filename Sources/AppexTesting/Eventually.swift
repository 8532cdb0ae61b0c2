/// Waits, boundedly, for `condition`, checking it every 20 ms, and returns whether it held.
/// The bound only keeps a broken build from hanging the run. It sleeps between checks as a
/// task, so the waiting holds no thread of the cooperative pool.
public func eventually(seconds: Double = 15, _ condition: () -> Bool) async -> Bool {
    await eventually(seconds: seconds) { () async -> Bool in condition() }
}

/// ``eventually(seconds:_:)`` for a condition that must await, such as running a command.
public func eventually(seconds: Double = 15, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
