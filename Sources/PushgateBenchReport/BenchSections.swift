import Foundation

/// The table and notes of each suite's section of docs/performance.md, from its figures. The
/// text before the facts comes from the suite's script (Scripts/bench.d), which knows what it ran.
enum BenchSections {
    typealias Body = @Sendable (SuiteFigures) throws -> [String]

    static let bodies: [String: Body] = [
        "core": core, "apns": apns, "relay": relay, "host": host, "live-activity": liveActivity,
        "hapi": hapi, "hapi-push": hapiPush, "postgres": postgres, "gateway": gateway,
    ]

    private static func count(_ value: Double) -> String { BenchNumber.count(value) }
    private static func median(_ values: [Double]) -> Double { BenchStatistics.median(values) }

    static func core(_ suite: SuiteFigures) throws -> [String] {
        let rounds = try suite.rounds()
        func best(_ name: String) throws -> Double { try BenchStatistics.values(rounds, name).max()! }
        let rows: [(metric: String, name: String, reference: String?, goal: String)] = [
            ("P-256 verify", "core.p256_verify", "openssl.verify", "core.p256_verify/openssl.verify"),
            ("P-256 verify, key with its own table", "core.p256_verify_table", "openssl.verify", ""),
            ("P-256 sign", "core.p256_sign", "openssl.sign", "shown next to openssl"),
            ("hapi envelope seal, 300 B", "core.hapi_seal", nil, "core.hapi_seal"),
            ("canonical JSON, 300 B payload", "core.canonical_json", nil, ""),
        ]
        var table = ReferenceTable()
        var notes: [String] = []
        for row in rows {
            let value = try best(row.name)
            var ratio: Double?, reference = "—", goalText = "—", met: Bool?
            if let partner = row.reference {
                let ratios = try BenchStatistics.ratios(rounds, row.name, over: partner)
                ratio = median(ratios)
                reference = "\(count(try best(partner)))/s (\(partner.replacingOccurrences(of: ".", with: " speed ")))"
                notes.append("\(row.metric) ratios, sorted: " + ratios.sorted().map { BenchNumber.fixed($0, decimals: 2) }.joined(separator: ", "))
            }
            if let goal = BenchGoals.all[row.goal] {
                goalText = goal.text
                met = goal.isMet(by: goal.judged == .median ? try BenchStatistics.ratios(rounds, row.name, over: row.reference!) : [value])
            } else if !row.goal.isEmpty {
                goalText = row.goal
            }
            table.row(row.metric, shown: "\(count(value)) \(try rounds[0].require(row.name).unit)", reference: reference,
                      ratio: ratio, goal: goalText, met: met)
        }
        let ranges = try suite.names.map { name in
            let values = try BenchStatistics.values(rounds, name)
            return "\(name) \(count(values.min()!))–\(count(values.max()!))"
        }
        return table.lines + [
            "",
            "Figures are the best round; a ratio is the median of the per-round ratios (each round's pair",
            "runs back to back). " + notes.joined(separator: "; ") + ". docs/bench.md breaks verification down by",
            "instruction count, which the machine's load does not move.",
            "Range over the rounds: " + ranges.joined(separator: "; ") + ".",
        ]
    }

    static func apns(_ suite: SuiteFigures) throws -> [String] {
        let rate = "apns.pushes_per_second"
        var series = ["1000": try suite.rounds("1000"), "2000": try suite.rounds("2000")]
        let best = try series.mapValues { try BenchStatistics.bestRound($0, by: rate) }
        var table = ReferenceTable()
        var b = best["1000"]!
        let rateGoal = BenchGoals.goal(rate)
        table.row("pushes/s, 1 000 outstanding", try b.require(rate), goal: rateGoal.text, met: rateGoal.isMet(by: [try b.require(rate).value]))
        table.row("latency p50 / p99", try b.require("apns.latency_p50"), try b.require("apns.latency_p99"))
        table.row("client CPU per push", try b.require("apns.client_cpu_per_push"))
        table.row("fake APNs CPU per push", try b.require("apns.fake_cpu_per_push"))
        table.row("client peak RSS (VmHWM)", try b.require("apns.client_peak_rss"))
        table.row("fake APNs peak RSS (VmHWM)", try b.require("apns.fake_peak_rss"))
        b = best["2000"]!
        table.row("pushes/s, 2 000 outstanding", try b.require(rate))
        table.row("latency p50 / p99, 2 000 outstanding", try b.require("apns.latency_p50"), try b.require("apns.latency_p99"))
        let spans = try ["1000", "2000"].map { window in
            let values = try BenchStatistics.values(series[window]!, rate)
            return "\(count(Double(window)!)) outstanding \(count(values.min()!))–\(count(values.max()!))"
        }
        var lines = table.lines + ["", "Range of pushes/s over the rounds: " + spans.joined(separator: "; ") + "."]
        guard series["1000"]!.allSatisfy({ $0["h2load.pushes_per_second"] != nil }) else { return lines }

        // The client against nghttp2's own client on the same fake, round by round.
        series["1000"] = try series["1000"]!.map { round in
            var round = round
            round["client_h2load_rate"] = Figure(try round.require(rate).value / round.require("h2load.pushes_per_second").value, "")
            round["client_h2load_cpu"] = Figure(try round.require("apns.client_process_cpu_per_push").value
                / round.require("h2load.cpu_per_push").value, "")
            return round
        }
        var rounds = RoundsTable(series["1000"]!)
        try rounds.row("pushes/s, client (1 000 outstanding)", rate, whole: true)
        try rounds.row("pushes/s, h2load (1 000 streams)", "h2load.pushes_per_second", whole: true)
        try rounds.row("client / h2load rate, same round", "client_h2load_rate")
        try rounds.row("client CPU per push, whole process", "apns.client_process_cpu_per_push", lowerIsBetter: true)
        try rounds.row("h2load CPU per push, whole process", "h2load.cpu_per_push", lowerIsBetter: true)
        try rounds.row("client / h2load CPU per push, same round", "client_h2load_cpu", lowerIsBetter: true,
                       goal: BenchGoals.goal("apns.client_process_cpu_per_push/h2load.cpu_per_push"))
        lines += [
            "",
            "Against `h2load` (nghttp2's own client) in the same rounds, beside the client's 1 000-outstanding",
            "run, on a fake of its own (before the client in even rounds, after it in odd ones): the same",
            "payload and headers, one connection, 1 000 streams, a distinct device token per request. CPU",
            "per push is each process's whole CPU time (user + system, as `/usr/bin/time` counts it) over",
            "all its pushes, warm-up included; the ratios are per round.",
            "",
        ] + rounds.lines
        return lines
    }

    static func relay(_ suite: SuiteFigures) throws -> [String] {
        let once = try suite.rounds("once")[0]
        let series = try suite.rounds()
        let verify = median(try BenchStatistics.values(series, "openssl.verify"))
        let reference = "\(count(verify))/s (openssl speed verify, 1 core, median)"
        func paired(_ name: String) throws -> (middle: Round, ratio: Double, ratios: [Double]) {
            let ratios = try BenchStatistics.ratios(series, name, over: "openssl.verify")
            return (try BenchStatistics.medianRound(series, by: name), median(ratios), ratios)
        }
        var table = ReferenceTable()
        var notes: [String] = []
        let hosts = count(suite.setting("register_hosts", or: 1000))
        for (store, label) in [("file", "SQLite file"), ("memory", "SQLite `:memory:`"),
                               ("hosts", "SQLite file, \(hosts) hosts (no key tables)")] {
            let name = "relay.register_\(store).requests_per_second"
            var (middle, ratio, ratios) = try paired(name)
            let goal = store == "file" ? BenchGoals.goal("relay.register_file.requests_per_second/openssl.verify") : nil
            table.row("register-token/s, \(label)", try middle.require(name), reference: reference, ratio: ratio,
                      goal: goal?.text ?? "—", met: goal?.isMet(by: ratios))
            notes.append("\(label): " + (try zip(series, ratios).map { round, ratio in
                "\(count(try round.require(name).value))/s vs \(count(try round.require("openssl.verify").value))/s (\(BenchNumber.fixed(ratio, decimals: 2)))"
            }).joined(separator: ", "))
            let perCPU = "relay.register_\(store).per_relay_cpu_second"
            (middle, ratio, _) = try paired(perCPU)
            table.row("register-token per relay CPU-second, \(label)", try middle.require(perCPU), reference: reference, ratio: ratio)
            middle = try paired(name).middle
            table.row("register-token latency p50 / p99, \(label)", try middle.require("relay.register_\(store).latency_p50"),
                      try middle.require("relay.register_\(store).latency_p99"))
        }
        for (tokens, name, label) in [(1, "relay.send_1", "1 token"), (100, "relay.send_100", "100 tokens"),
                                      (100, "relay.send_100_android_50", "100 tokens (50 iOS, 50 Android)")] {
            table.row("send, \(label): requests/s", try once.require("\(name).requests_per_second"))
            if tokens > 1 { table.row("send, \(label): tokens/s", try once.require("\(name).tokens_per_second")) }
            table.row("send, \(label): latency p50 / p99", try once.require("\(name).latency_p50"), try once.require("\(name).latency_p99"))
            table.row("send, \(label): relay CPU per token", try once.require("\(name).relay_cpu_per_token"))
        }
        let bindings = count(suite.setting("bindings", or: 100_000))
        let idle = suite.setting("idle_connections", or: 1000)
        let memoryGoal = BenchGoals.goal("relay.rss")
        for (name, label) in [("relay.rss_idle", "relay RSS, idle"),
                              ("relay.rss_idle_connections", "relay RSS, \(count(idle)) idle keep-alive connections open"),
                              ("relay.rss_bindings_burst", "relay RSS, right after registering \(bindings) bindings (64 connections)"),
                              ("relay.rss_bindings", "relay RSS, \(bindings) bindings, one purge cycle (10 s) later"),
                              ("relay.rss_bindings_restarted", "relay RSS, \(bindings) bindings, restarted")] {
            let mib = try once.require(name).value / 1024
            let burst = name == "relay.rss_bindings_burst"
            table.row(label, Figure(mib, "MiB"), goal: burst ? "—" : memoryGoal.text, met: burst ? nil : memoryGoal.isMet(by: [mib]))
        }
        let cost = try ["file", "memory", "hosts"].map { store in
            BenchNumber.fixed(1e6 / median(try BenchStatistics.values(series, "relay.register_\(store).per_relay_cpu_second")), decimals: 0)
        }
        let perConnection = (try once.require("relay.rss_idle_connections").value - once.require("relay.rss_idle").value) / idle
        return table.lines + [
            "",
            "Register rounds (rate vs that round's `openssl speed` verify, ratio): \(notes.joined(separator: "; ")). A register",
            "figure is the median round; its ratio is the median of the rounds' ratios, each round's pair run",
            "back to back so a change of the machine's load between rounds cancels out.",
            "",
            "A register costs the relay \(cost[0]) µs of CPU with the file store, \(cost[1]) µs with",
            "`:memory:` and \(cost[2]) µs from \(hosts) hosts (medians over the rounds), against \(BenchNumber.fixed(1e6 / verify, decimals: 0)) µs for one",
            "`openssl speed` verification; the difference between the first and the last is the key table",
            "(docs/bench.md has the profile).",
            "Each idle keep-alive connection adds \(BenchNumber.fixed(perConnection, decimals: 0)) KiB, about libmicrohttpd's per-connection",
            "memory pool (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`, default 32 KiB; `HTTPServer` does not set",
            "it); the relay closes idle connections after 10 s, and the figure is read while all are open.",
            "With \(bindings) bindings the replay set still holds their keys (until ts + skew + 1 s, about 5 min;",
            "a 16-byte digest and its bookkeeping each, and one journal record). Right after the burst the heap also holds what the burst's requests",
            "freed; the next purge cycle trims it back to the system. Restarted on the same database the",
            "relay reads the keys still live back from its journal (they expire within about 5 min); the",
            "bindings themselves live in SQLite.",
        ]
    }

    static func host(_ suite: SuiteFigures) throws -> [String] {
        var table = RoundsTable(try suite.rounds())
        for (key, label) in [("1", "1 token"), ("100", "100 tokens, 3 locales"), ("1_serial", "1 token, one event at a time")] {
            let name = "host.events_\(key)"
            try table.row("events/s, \(label)", "\(name).events_per_second", whole: true)
            if key == "100" { try table.row("pushes/s, \(label)", "\(name).pushes_per_second", whole: true) }
            try table.row("event latency p50 / p99, \(label)", "\(name).latency_p50", "\(name).latency_p99")
            try table.row("host CPU per event, \(label)", "\(name).host_cpu_per_event", lowerIsBetter: true,
                          goal: key == "100" ? nil : BenchGoals.goal("host.host_cpu_per_event_one_device"), whole: true)
        }
        return table.lines
    }

    static func liveActivity(_ suite: SuiteFigures) throws -> [String] {
        let tokens = suite.setting("tokens", or: 10_000)
        let ticks = count(suite.setting("ticks", or: 50))
        let changed = max(1, (tokens / 100).rounded(.down))
        var table = RoundsTable(try suite.rounds())
        try table.row("CPU of one tick, \(count(tokens)) tokens × 4 rows, nothing changed (median of \(ticks))",
                      "live_activity.tick_unchanged_cpu_ms", lowerIsBetter: true, goal: BenchGoals.goal("live_activity.tick_unchanged_cpu_ms"))
        try table.row("— the slowest of those ticks", "live_activity.tick_unchanged_cpu_max_ms", lowerIsBetter: true)
        try table.row("— wall time (median)", "live_activity.tick_unchanged_wall_ms", lowerIsBetter: true)
        try table.row("requests sent by those \(ticks) ticks", "live_activity.tick_unchanged_requests", lowerIsBetter: true,
                      goal: BenchGoals.goal("live_activity.tick_unchanged_requests"), whole: true)
        try table.row("store reads of such a tick", "live_activity.tick_unchanged_store_reads", lowerIsBetter: true, whole: true)
        try table.row("CPU of one tick, 1 % (\(count(changed)) tokens) changed (median of \(ticks))",
                      "live_activity.tick_changed_cpu_ms", lowerIsBetter: true)
        try table.row("— the slowest of those ticks", "live_activity.tick_changed_cpu_max_ms", lowerIsBetter: true)
        try table.row("— wall time (median)", "live_activity.tick_changed_wall_ms", lowerIsBetter: true)
        try table.row("— requests per tick", "live_activity.tick_changed_requests", lowerIsBetter: true, whole: true)
        try table.row("CPU of one tick right after another connection wrote the table (copy reloaded; median of 3)",
                      "live_activity.tick_reload_cpu_ms", lowerIsBetter: true)
        try table.row("store reads of a tick with no Live Activity tokens", "live_activity.empty_tick_store_reads", lowerIsBetter: true,
                      goal: BenchGoals.goal("live_activity.empty_tick_store_reads"), whole: true)
        return table.lines
    }

    static func hapi(_ suite: SuiteFigures) throws -> [String] {
        let rounds = try suite.rounds().map { round in
            var round = round
            round["hapi.cpu_per_device"] = Figure(1e6 / (try round.require("hapi.fanout_envelopes").value), "µs")
            return round
        }
        var table = RoundsTable(rounds)
        try table.row("envelopes per CPU-second, fan-out of one event to 100 devices", "hapi.fanout_envelopes")
        try table.row("events per CPU-second (100 devices each)", "hapi.fanout_events")
        try table.row("host CPU per device", "hapi.cpu_per_device", lowerIsBetter: true)
        return table.lines
    }

    static func hapiPush(_ suite: SuiteFigures) throws -> [String] {
        var lines = RoundsTable([]).lines
        for concurrency in ["32", "64"] {
            var table = RoundsTable(try suite.rounds(concurrency))
            let label = "\(concurrency) connections"
            try table.row("requests/s, \(label)", "hapi_push.requests_per_second")
            try table.row("latency p50 / p99, \(label)", "hapi_push.latency_p50", "hapi_push.latency_p99")
            try table.row("relay CPU per request, \(label)", "hapi_push.relay_cpu_per_request", lowerIsBetter: true)
            try table.row("fake APNs CPU per request, \(label)", "hapi_push.fake_cpu_per_request", lowerIsBetter: true)
            try table.row("relay peak RSS (`VmHWM`), \(label)", "hapi_push.relay_peak_rss", lowerIsBetter: true)
            lines += table.lines.dropFirst(2)
        }
        return lines
    }

    static func postgres(_ suite: SuiteFigures) throws -> [String] {
        let rounds = try suite.rounds().map { round in
            var round = round
            round["pg_ratio"] = Figure(try round.require("postgres.pg.requests_per_second").value
                / round.require("postgres.sqlite.requests_per_second").value, "")
            for store in ["pg", "sqlite"] {
                round["\(store)_relay_cpu"] = Figure(1e6 / (try round.require("postgres.\(store).per_relay_cpu_second").value), "µs")
            }
            round["pg_total_cpu"] = Figure(try round.require("pg_relay_cpu").value + round.require("postgres.pg.store_cpu_per_request").value, "µs")
            return round
        }
        var table = RoundsTable(rounds)
        try table.row("register-token/s, PostgreSQL", "postgres.pg.requests_per_second")
        try table.row("register-token/s, SQLite file", "postgres.sqlite.requests_per_second")
        try table.row("PostgreSQL rate / SQLite rate, same round", "pg_ratio")
        try table.row("latency p50 / p99, PostgreSQL", "postgres.pg.latency_p50", "postgres.pg.latency_p99")
        try table.row("latency p50 / p99, SQLite file", "postgres.sqlite.latency_p50", "postgres.sqlite.latency_p99")
        try table.row("relay CPU per register, PostgreSQL", "pg_relay_cpu", lowerIsBetter: true)
        try table.row("PostgreSQL server CPU per register", "postgres.pg.store_cpu_per_request", lowerIsBetter: true)
        try table.row("relay + server CPU per register, PostgreSQL", "pg_total_cpu", lowerIsBetter: true)
        try table.row("relay CPU per register, SQLite file", "sqlite_relay_cpu", lowerIsBetter: true)
        return table.lines
    }

    static func gateway(_ suite: SuiteFigures) throws -> [String] {
        var table = RoundsTable(try suite.rounds())
        try table.row("handshakes/s (challenge + session)", "gateway.handshake.per_second")
        try table.row("handshake latency p50 / p99", "gateway.handshake.latency_p50", "gateway.handshake.latency_p99")
        try table.row("`POST /v1/send` requests/s, queued (quota counted and charged)", "gateway.send_queued.per_second")
        try table.row("send latency p50 / p99, queued", "gateway.send_queued.latency_p50", "gateway.send_queued.latency_p99")
        try table.row("`POST /v1/send` requests/s, over quota (counted, refused)", "gateway.send_over_quota.per_second")
        try table.row("send latency p50 / p99, over quota", "gateway.send_over_quota.latency_p50", "gateway.send_over_quota.latency_p99")
        try table.row("relay CPU for the whole round", "gateway.relay_cpu", lowerIsBetter: true)
        try table.row("relay CPU per request", "gateway.relay_cpu_per_request", lowerIsBetter: true)
        try table.row("relay peak RSS (`VmHWM`)", "gateway.relay_peak_rss", lowerIsBetter: true)
        return table.lines
    }
}
