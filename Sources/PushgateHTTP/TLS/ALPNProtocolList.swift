/// An ALPN protocol list in its wire form: each name prefixed by its one-byte length (RFC 7301 §3.1).
package struct ALPNProtocolList: Sendable {
    /// The names in preference order.
    package let names: [String]
    /// The length-prefixed encoding handed to OpenSSL.
    package let wire: [UInt8]

    package init(_ names: [String]) throws {
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
}
