import Glibc

/// A resolved IPv4 or IPv6 socket address.
public struct SocketAddress: Sendable, CustomStringConvertible {
    let storage: sockaddr_storage
    let length: socklen_t
    /// The numeric host (`127.0.0.1`, `::1`).
    public let host: String
    public let port: UInt16

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    package var family: Int32 { Int32(storage.ss_family) }

    /// Whether the address is IPv6.
    public var isIPv6: Bool { family == AF_INET6 }

    /// Lends a copy of the address as a `sockaddr` pointer for the duration of `body`.
    func withSockaddrPointer<T>(_ body: (UnsafeMutableRawPointer) throws -> T) rethrows -> T {
        var copy = storage
        return try withUnsafeMutableBytes(of: &copy) { try body($0.baseAddress!) }
    }

    /// The text form of a peer's IP address; IPv4-mapped IPv6 addresses come out as IPv4.
    /// `nil` for other families.
    static func numericHost(of address: UnsafePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ip = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr
            guard inet_ntop(AF_INET, &ip, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        case AF_INET6:
            var ip = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
            let bytes = withUnsafeBytes(of: ip) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                var v4 = in_addr()
                withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes[12..<16]) }
                guard inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            } else {
                guard inet_ntop(AF_INET6, &ip, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            }
        default:
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address for a numeric IPv4 or IPv6 literal, or nil when `literal` is not one.
    public init?(ipLiteral literal: String, port: UInt16) {
        var storage = sockaddr_storage()
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            withUnsafeBytes(of: address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
            self.init(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in>.size), host: literal, port: port)
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            withUnsafeBytes(of: address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
            self.init(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in6>.size), host: literal, port: port)
        } else {
            return nil
        }
    }

    private init(storage: sockaddr_storage, length: socklen_t, host: String, port: UInt16) {
        self.storage = storage
        self.length = length
        self.host = host
        self.port = port
    }

    /// Whether `text` is a numeric IPv4 or IPv6 address.
    public static func isIPLiteral(_ text: String) -> Bool {
        SocketAddress(ipLiteral: text, port: 0) != nil
    }

    /// Resolves `host` with `getaddrinfo` (blocking: call it off any event loop). IP literals
    /// resolve to themselves without a lookup.
    public static func resolve(host: String, port: UInt16) throws -> [SocketAddress] {
        if let literal = SocketAddress(ipLiteral: host, port: port) { return [literal] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            throw TLSError(.connectFailed, operation: "resolve \(host)", detail: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let raw = info.ai_addr, Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var numeric = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(raw, info.ai_addrlen, &numeric, socklen_t(numeric.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: Int(info.ai_addrlen))) }
            let text = String(decoding: numeric.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            addresses.append(SocketAddress(storage: storage, length: info.ai_addrlen, host: text, port: port))
        }
        guard !addresses.isEmpty else {
            throw TLSError(.connectFailed, operation: "resolve \(host)", detail: "no usable address")
        }
        return addresses
    }

    package func withSockAddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }
}
