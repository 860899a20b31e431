/// A connection that can be told which serial queue owns it, and from then on checks, in debug
/// builds, that every statement runs on that queue (docs/store.md, "Concurrency").
public protocol QueueConfinedConnection: AnyObject {
    /// From now on the connection is used only on `owner`'s queue; call it on that queue.
    func confine(to owner: DispatchQueueExecutor)
}

extension SQLiteConnection: QueueConfinedConnection {}
extension PostgreSQLConnection: QueueConfinedConnection {}
