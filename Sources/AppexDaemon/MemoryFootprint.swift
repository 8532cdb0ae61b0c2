import AppexSystem

/// The footprint of the extension a process runs, checked against its point's memory limit.
enum MemoryFootprint {
    /// The footprint of the extension `process` runs: its own, or where it is the init of
    /// a sandbox's pid namespace (it has an exit report), that of the processes under it,
    /// which are the extension and whatever it started. Nil if it is gone.
    static func residentBytes(of process: ProcessDescriptor) -> UInt64? {
        guard process.exitReport != nil else { return ProcessMemory.footprint(of: [process.processID]) }
        let program = ProcessTree.descendants(of: process.processID)
        return ProcessMemory.footprint(of: program.isEmpty ? [process.processID] : program)
    }
}
