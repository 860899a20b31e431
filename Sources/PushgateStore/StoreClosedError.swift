/// The store was used after `close()`.
public struct StoreClosedError: Error, CustomStringConvertible, Sendable {
    public init() {}
    public var description: String { "the store is closed" }
}
