import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateTesting
import Testing
import PushgateTestSupport

/// docs/host.md "Metrics": the `pushgate-host` binary with `PUSHGATE_METRICS_LISTEN` serves
/// Prometheus text on that listener only.
@Suite(.hangLimit(.minutes(1))) struct MetricsListenerTests {
    @Test func metricsAreServedOnTheirOwnListenerOnly() async throws {
        let home = TemporaryHome()
        let host = try await ServerProcess.start(
            "host", executable: BuiltProducts.path("pushgate-host"),
            environment: home.environment(["PUSHGATE_IOS_PUSH": "off", "PUSHGATE_ANDROID_PUSH": "off",
                                           "PUSHGATE_HOST_LISTEN": "127.0.0.1:0", "PUSHGATE_METRICS_LISTEN": "127.0.0.1:0"]),
            logFile: home.path + "-host.log")
        let metricsPort = try #require(host.metricsPort)
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(metricsPort)/metrics")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let text = String(decoding: data, as: UTF8.self)
        for series in ["pushgate_host_events_total 0", "pushgate_host_pushes_total{outcome=\"queued\"} 0",
                       "pushgate_host_outbox_depth 0", "pushgate_host_outbox_expired_total 0",
                       "pushgate_host_outbox_oldest_age_seconds 0.0"] {
            #expect(text.contains(series + "\n"), "\(series) in:\n\(text)")
        }
        let (_, apiResponse) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(host.port)/metrics")!)
        #expect((apiResponse as? HTTPURLResponse)?.statusCode == 404, "the API port does not serve metrics")
        #expect(try await host.stop() == 0)
    }
}
