/// One HTTP/2 header field. Names are sent in lower case, as HTTP/2 requires.
public struct HTTP2Header: Hashable, Sendable {
    public let name: String
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTP2Header {
    /// The value of the first header named `name` (compared in lower case).
    public func first(named name: String) -> String? {
        let wanted = name.lowercased()
        return first { $0.name == wanted }?.value
    }
}
