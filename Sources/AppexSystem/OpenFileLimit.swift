import Glibc

/// The most descriptors this process may have open (RLIMIT_NOFILE).
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one, and returns the limit now in force. appexd
    /// holds several descriptors for each extension it runs (its pidfd, its channels, its
    /// cgroup, its log), so the usual soft limit of 1024 ran out at about a hundred at once.
    /// The processes it starts set their own (``SandboxProfile``'s `openFiles`).
    @discardableResult
    public static func raiseToHardLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return UInt64(limit.rlim_cur)
    }

    /// The limit in force now (the soft one).
    public static var current: UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return UInt64(limit.rlim_cur)
    }
}
