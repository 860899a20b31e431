/// The deliberate restarts of a chain's host, as the hub sees them: a post whose connection
/// failed is sent again only when the host was (or is being) restarted since it went out, so a
/// host that dies on its own still fails the scenario.
actor HostRestarts {
    /// How many restarts have begun.
    private var generation = 0
    private var restarting = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// The restarts begun so far; a post notes it before it goes out.
    var current: Int { generation }

    /// A restart begins: the host is about to be killed.
    func begin() {
        generation += 1
        restarting = true
    }

    /// The host is serving again.
    func end() {
        restarting = false
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    /// Whether a post that went out at `generation` and lost its connection met a restart; if
    /// so, returns once the host serves again.
    func waitIfRestarted(since generation: Int) async -> Bool {
        guard generation != self.generation || restarting else { return false }
        if restarting { await withCheckedContinuation { waiters.append($0) } }
        return true
    }
}
