/// An ALPN protocol list in its wire form: each name prefixed by its one-byte length (RFC 7301 §3.1).
struct ALPNProtocolList: Sendable {
    /// The names in preference order.
    let names: [String]
    /// The length-prefixed encoding handed to OpenSSL.
    let wire: [UInt8]

    init(_ names: [String]) throws {
        var wire: [UInt8] = []
        for name in names {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw TLSError(.configuration, operation: "ALPN list", detail: "a protocol name must be 1 to 255 bytes long")
            }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        self.names = names
        self.wire = wire
    }

    /// The offset and length of the first of our names that the peer's wire-form list also holds.
    ///
    /// Our order wins: the server picks its most preferred protocol among those the client offers.
    func firstMatch(in offered: UnsafeBufferPointer<UInt8>) -> (offset: Int, count: Int)? {
        for name in names {
            let wanted = Array(name.utf8)
            var index = 0
            while index < offered.count {
                let length = Int(offered[index])
                let start = index + 1
                guard start + length <= offered.count else { return nil }
                if length == wanted.count && offered[start..<start + length].elementsEqual(wanted) {
                    return (start, length)
                }
                index = start + length
            }
        }
        return nil
    }
}
