import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushgateTesting
import PushgateTestSupport
import Testing

/// docs/monitoring/: every metric the alert rules and the Grafana dashboard name is one the
/// real `pushgate-relay` (with its gateway on) or `pushgate-host` serves on `/metrics`; only
/// Prometheus's own `up` is exempt. That the rules are valid is promtool's part
/// (Scripts/check-monitoring).
@Suite(.hangLimit(.minutes(1))) struct MonitoringTests {
    @Test func alertRulesAndDashboardNameOnlyExportedMetrics() async throws {
        let exported = try await Self.exportedMetricNames()
        #expect(exported.contains("pushgate_relay_in_flight_limit") && exported.contains("pushgate_host_outbox_oldest_age_seconds")
                && exported.contains("pushgate_gateway_pending_notifications"), "\(exported.sorted())")
        for (file, expressions) in [(MonitoringFiles.alertsPath, try MonitoringFiles.alertExpressions()),
                                    (MonitoringFiles.dashboardPath, try MonitoringFiles.dashboardExpressions())] {
            #expect(expressions.count >= 10, "\(file): \(expressions.count) expressions found")
            for expression in expressions {
                let unknown = MetricNames.inPromQL(expression).subtracting(exported).subtracting(["up"])
                #expect(unknown.isEmpty, "\(file): \(unknown.sorted()) in \(expression)")
            }
        }
    }

    /// The name extraction itself, on the forms the files use.
    @Test func metricNamesAreFoundInPromQL() {
        #expect(MetricNames.inPromQL(#"up{job="pushgate-relay"} == 0"#) == ["up"])
        #expect(MetricNames.inPromQL(#"""
            sum by (instance) (rate(pushgate_relay_provider_results_total{result=~"transient|refused"}[5m]))
              / sum by (instance) (rate(pushgate_relay_provider_results_total[5m])) > 0.05
            """#) == ["pushgate_relay_provider_results_total"])
        #expect(MetricNames.inPromQL("avg_over_time(pushgate_relay_in_flight[5m]) / pushgate_relay_in_flight_limit > 0.8")
                == ["pushgate_relay_in_flight", "pushgate_relay_in_flight_limit"])
        #expect(MetricNames.inPromQL(#"sum(rate(pushgate_host_outbox_dead_total{instance=~"$host"}[$__rate_interval])) > 1e3"#)
                == ["pushgate_host_outbox_dead_total"])
        #expect(MetricNames.inPromQL("label_values(pushgate_relay_in_flight, instance)") == ["pushgate_relay_in_flight"])
        #expect(MetricNames.inPromQL("a_total offset 5m unless on (job) b") == ["a_total", "b"])
        #expect(MetricNames.inExposition("# TYPE x_total counter\nx_total{a=\"1\"} 2\ny 3\n") == ["x_total", "y"])
    }

    /// Starts a dry-run relay with its gateway on and a host, each with a metrics listener, and
    /// reads both `/metrics`.
    static func exportedMetricNames() async throws -> Set<String> {
        let directory = try TemporaryDirectory.create("pushgate-monitoring")
        defer { try? FileManager.default.removeItem(at: directory) }
        let relay = try await ServerProcess.start(
            "relay", executable: BuiltProducts.path("pushgate-relay"),
            arguments: ["--dry-run", "--port", "0", "--metrics-listen", "127.0.0.1:0",
                        "--database-path", directory.appendingPathComponent("relay.sqlite").path],
            environment: ["PUSHGATE_GATEWAY_PUBLIC_URL": "http://127.0.0.1"], logFile: directory.path + "/relay.log")
        let host = try await ServerProcess.start(
            "host", executable: BuiltProducts.path("pushgate-host"),
            environment: ["PUSHGATE_HOME": directory.appendingPathComponent("host").path, "PUSHGATE_IOS_PUSH": "off",
                          "PUSHGATE_ANDROID_PUSH": "off", "PUSHGATE_HOST_LISTEN": "127.0.0.1:0",
                          "PUSHGATE_METRICS_LISTEN": "127.0.0.1:0"],
            logFile: directory.path + "/host.log")
        var names: Set<String> = []
        for server in [relay, host] {
            let port = try #require(server.metricsPort, "\(server.name) printed no metrics line")
            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            names.formUnion(MetricNames.inExposition(String(decoding: data, as: UTF8.self)))
        }
        #expect(try await relay.stop() == 0)
        #expect(try await host.stop() == 0)
        return names
    }
}
