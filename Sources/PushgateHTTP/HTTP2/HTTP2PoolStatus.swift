import Synchronization

/// Per-origin figures published by the event loop for ``HTTP2ClientPool/statistics(for:)``.
final class HTTP2PoolStatus: Sendable {
    private let figures = Mutex<[HTTP2Origin: HTTP2OriginStatistics]>([:])

    func update(_ newFigures: [HTTP2Origin: HTTP2OriginStatistics]) { figures.withLock { $0 = newFigures } }

    func statistics(for origin: HTTP2Origin) -> HTTP2OriginStatistics {
        figures.withLock { $0[origin] } ?? HTTP2OriginStatistics(connections: 0, openStreams: 0, waitingRequests: 0)
    }
}
