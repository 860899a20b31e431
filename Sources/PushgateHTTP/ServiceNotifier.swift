import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager how the process is doing with sd_notify(3)'s protocol, written
/// against `NOTIFY_SOCKET` directly (no libsystemd): one datagram per state (`READY=1`,
/// `STOPPING=1`, `WATCHDOG=1`) to the AF_UNIX socket it names, a path or, with a leading `@`,
/// a name in the abstract namespace.
public final class ServiceNotifier: Sendable {
    /// `sockaddr_un` for the socket, as bytes, and how many of them count.
    private let address: [UInt8]
    private let descriptor: Int32
    /// How often the service manager wants `WATCHDOG=1`: half its `WATCHDOG_USEC`, as
    /// sd_watchdog_enabled(3) advises; `nil` when it wants none from this process.
    public let watchdogIntervalMs: Int64?

    /// `nil` when `NOTIFY_SOCKET` is unset, or not a path or an abstract name that fits a socket address.
    public init?(environment: [String: String]) {
        guard let name = environment["NOTIFY_SOCKET"], name.hasPrefix("/") || name.hasPrefix("@") else { return nil }
        var bytes = Array(name.utf8)
        // The abstract namespace: the name after a NUL instead of the `@`, no NUL at its end.
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 } else { bytes.append(0) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        guard bytes.count <= MemoryLayout<sockaddr_un>.size - pathOffset else { return nil }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var address = withUnsafeBytes(of: &storage) { Array($0) }
        address.replaceSubrange(pathOffset..<(pathOffset + bytes.count), with: bytes)
        self.address = Array(address.prefix(pathOffset + bytes.count))
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        watchdogIntervalMs = Self.watchdogInterval(environment)
    }

    deinit { close(descriptor) }

    /// Sends `state`, such as `READY=1`; `false` when the datagram could not be sent.
    @discardableResult
    public func send(_ state: String) -> Bool {
        let message = Array(state.utf8)
        let sent = address.withUnsafeBytes { address in
            message.withUnsafeBytes { message in
                sendto(descriptor, message.baseAddress, message.count, Int32(MSG_NOSIGNAL),
                       address.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
        }
        return sent == message.count
    }

    /// Half of `WATCHDOG_USEC` in milliseconds (at least 1), when it is set and `WATCHDOG_PID`
    /// is unset or this process.
    private static func watchdogInterval(_ environment: [String: String]) -> Int64? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() { return nil }
        return max(1, microseconds / 2_000)
    }
}
