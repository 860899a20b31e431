import Foundation
@testable import PushgateCore
import PushgateHTTP
import PushgateTestSupport
import PushgateTesting
import Testing

/// sd_notify's protocol written against `NOTIFY_SOCKET` (docs/relay.md "Service manager"): real
/// AF_UNIX datagram sockets, at a path and in the abstract namespace; the watchdog's pings go
/// out through the event loop on the manual scheduler's beat, and a stuck loop sends none.
@Suite(.hangLimit(.minutes(1))) struct ServiceNotifierTests {
    @Test(arguments: [false, true]) func statesReachTheSocketAtAPathOrAnAbstractName(abstract: Bool) async throws {
        let socket = try NotifySocket(abstract: abstract)
        let notifier = try #require(ServiceNotifier(environment: ["NOTIFY_SOCKET": socket.name]))
        #expect(notifier.send("READY=1") && notifier.send("STOPPING=1"))
        #expect(try await onOwnThread(within: 10, "datagrams") { [try socket.receive(within: 10), try socket.receive(within: 10)] }
                == ["READY=1", "STOPPING=1"])
        #expect(notifier.watchdogIntervalMs == nil)
    }

    @Test func noSocketNoNotifierAndTheWatchdogIsHalfItsIntervalForThisProcessOnly() throws {
        #expect(ServiceNotifier(environment: [:]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]) == nil)
        let socket = "/run/systemd/notify"
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "30000000"])?.watchdogIntervalMs == 15_000)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "30000000",
                                              "WATCHDOG_PID": "\(getpid())"])?.watchdogIntervalMs == 15_000)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "30000000",
                                              "WATCHDOG_PID": "\(getpid() + 1)"])?.watchdogIntervalMs == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": "0"])?.watchdogIntervalMs == nil)
    }

    @Test func aNameAtTheSocketAddressLimitFitsAndOneByteMoreIsLoggedAsUnusable() {
        let longest = ServiceNotifier.maxNameBytes
        #expect(longest == 107)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: longest - 1)]) != nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: longest)]) == nil)
        // The abstract name's `@` becomes the leading NUL: one byte more than a path.
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "@" + String(repeating: "x", count: longest)]) != nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "@" + String(repeating: "x", count: longest + 1)]) == nil)

        let sink = Logger.MemorySink()
        let status = ServiceStatus(readyWith: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)],
                                   scheduler: ManualScheduler(), loop: { _ in }, logger: Logger(component: "test", sink: sink))
        status.stopping()
        #expect(sink.lines.count == 1)
        #expect(sink.lines.first?.contains("NOTIFY_SOCKET names no socket") == true)
        // Without NOTIFY_SOCKET there is no service manager to tell, and nothing to say.
        let quiet = Logger.MemorySink()
        ServiceStatus(readyWith: [:], scheduler: ManualScheduler(), loop: { _ in }, logger: Logger(component: "test", sink: quiet)).stopping()
        #expect(quiet.lines.isEmpty)
    }

    @Test func theWatchdogPingsFromTheEventLoopAndAStuckLoopPingsNot() async throws {
        let socket = try NotifySocket(abstract: true)
        let environment = ["NOTIFY_SOCKET": socket.name, "WATCHDOG_USEC": "2000000"]
        let scheduler = ManualScheduler()
        let loop = try EpollEventLoop()
        defer { loop.close() }
        let status = ServiceStatus(readyWith: environment, scheduler: scheduler, loop: { loop.execute($0) },
                                   logger: Logger(component: "test", minimumLevel: .error))
        #expect(try await onOwnThread(within: 10, "READY=1") { try socket.receive(within: 10) } == "READY=1")
        scheduler.advance(byMs: 1_000)
        #expect(try await onOwnThread(within: 10, "WATCHDOG=1") { try socket.receive(within: 10) } == "WATCHDOG=1")
        status.stopping()
        #expect(try await onOwnThread(within: 10, "STOPPING=1") { try socket.receive(within: 10) } == "STOPPING=1")

        // A loop that never runs what it is handed: the beat comes, no ping leaves.
        let stuck = ServiceStatus(readyWith: environment, scheduler: scheduler, loop: { _ in },
                                  logger: Logger(component: "test", minimumLevel: .error))
        #expect(try await onOwnThread(within: 10, "READY=1") { try socket.receive(within: 10) } == "READY=1")
        scheduler.advance(byMs: 3_000)
        stuck.stopping()
        #expect(try await onOwnThread(within: 10, "STOPPING=1") { try socket.receive(within: 10) } == "STOPPING=1")
    }
}
