import Foundation
import PushgateCore
#if canImport(Glibc)
import Glibc
#endif

/// The service manager's end of sd_notify(3) for tests: an AF_UNIX datagram socket bound to a
/// fresh path or abstract name, whose `NOTIFY_SOCKET` value a child is given, and the states
/// it sent, read with a time limit.
public final class NotifySocket: Sendable {
    /// What `NOTIFY_SOCKET` is set to: the path, or `@` and the abstract name.
    public let name: String
    private let descriptor: Int32

    /// Binds a socket at a new path in the temporary directory, or with `abstract`, a new name
    /// in the abstract namespace.
    public init(abstract: Bool = false) throws {
        let unique = "pushgate-notify-\(UUID().uuidString.prefix(8))"
        name = abstract ? "@" + unique : FileManager.default.temporaryDirectory.appendingPathComponent(unique).path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError.last("socket AF_UNIX") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(name.utf8)
        if abstract { path[0] = 0 }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + path.count
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            let failure = SystemError.last("bind \(name)")
            close(descriptor)
            throw failure
        }
    }

    deinit {
        close(descriptor)
        if !name.hasPrefix("@") { unlink(name) }
    }

    /// The next datagram's text; throws when none arrives within `seconds`. Blocking: call it
    /// through ``onOwnThread(_:)``.
    public func receive(within seconds: Double) throws -> String {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&poller, 1, Int32(seconds * 1_000)) } while ready < 0 && errno == EINTR
        guard ready > 0 else { throw ChildProcessError(command: "receive on \(name)", reason: "no datagram within \(seconds) s") }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw SystemError.last("recv on \(name)") }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// Receives datagrams until one is `state`; returns those before it. Throws when `state`
    /// does not come within `seconds` of each wait.
    @discardableResult
    public func receive(until state: String, within seconds: Double) throws -> [String] {
        var before: [String] = []
        while true {
            let received = try receive(within: seconds)
            if received == state { return before }
            before.append(received)
        }
    }
}
