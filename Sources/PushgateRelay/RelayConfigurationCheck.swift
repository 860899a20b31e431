import Foundation
import PushgateCore
import PushgateHTTP
import PushgateStore

/// `pushgate-relay --check-config`: resolves and validates every setting as a start would,
/// reads every file a setting names (the `.p8` key, the FCM service accounts, the CA files,
/// the database), and prints the settings given and what the relay would do, secrets left out.
/// Nothing is created, opened for writing or contacted (a PostgreSQL server included).
enum RelayConfigurationCheck {
    /// Runs the check; returns 0 when the relay would start, 2 with the reason when it would not.
    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        do {
            let configuration = try RelayConfiguration(arguments: arguments, environment: environment)
            let plan = try plan(configuration)
            let source = try SettingsSource(arguments: arguments, environment: environment)
            var report = "pushgate-relay \(PushgateVersion.current): the configuration is valid\n\nsettings given:\n"
            for row in RelaySetting.table {
                let (value, origin) = source.resolve(row)
                guard let value else { continue }
                let shown = row.isSecret ? "(secret, not shown)" : value
                report += "  \(row.environment) = \(shown)  [\(origin == .flag ? row.flag ?? "flag" : "environment")]\n"
            }
            report += "\nthe relay would:\n" + plan.map { "  \($0)\n" }.joined()
            if !configuration.warnings.isEmpty {
                report += "\nwarnings:\n" + configuration.warnings.map { "  \($0)\n" }.joined()
            }
            FileHandle.standardOutput.write(Data(report.utf8))
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushgate-relay --check-config: \(error)\n".utf8))
            return 2
        }
    }

    /// What `configuration` makes the relay do, one line each, after reading the files it names.
    private static func plan(_ configuration: RelayConfiguration) throws(ConfigurationError) -> [String] {
        var plan = ["listen on \(configuration.host):\(configuration.port) (signed routes, POST /v1/push, GET /healthz"
                    + (configuration.gateway == nil ? ")" : ", the gateway's routes)")]
        plan.append(configuration.metricsListen.map { "serve GET /metrics on \($0.host):\($0.port)" } ?? "serve no metrics")
        if let url = configuration.databaseURL {
            plan.append("keep bindings, replay keys and the gateway's tables in PostgreSQL \(url) (not contacted by this check)")
        } else {
            do {
                let file = try SQLiteFile.check(path: configuration.databasePath, latestVersion: SQLiteFile.relayVersion)
                plan.append("keep bindings and the gateway's tables in SQLite: \(file)")
            } catch {
                throw ConfigurationError(setting: SettingsSource.displayName("DATABASE_PATH"), problem: error.description)
            }
        }
        if let apns = configuration.apns {
            _ = try apns.privateKey()
            try checkCAFile(apns.extraCAFile, "APNS_CA_FILE")
            plan.append("send alerts to APNs as key \(apns.keyId) of team \(apns.teamId) (a P-256 .p8 key, read), topic \(apns.bundleId); "
                        + "production \(apns.productionOrigin), sandbox \(apns.sandboxOrigin)"
                        + (apns.extraCAFile.map { ", also trusting the CA in \($0)" } ?? ""))
        } else {
            try checkWritable(configuration.dryRunLog, "DRY_RUN_LOG")
            plan.append("dry run: accept deliveries without sending them"
                        + (configuration.dryRunLog.map { ", appending each to \($0)" } ?? ""))
        }
        plan.append("APNs: apns-expiration now + \(configuration.apnsTTLSeconds) s; at most \(configuration.maxInFlight) provider "
                    + "requests at once; \(configuration.requestDeadlineMs) ms for each request")
        if let android = configuration.android {
            try checkCAFile(android.fcm.extraCAFile, AndroidAlertSettings.fcmNames.caFile)
            plan.append("send Android alerts through FCM project \(android.fcm.account.projectId) (service account read), "
                        + "channel \(android.channelId)")
        } else {
            plan.append("answer 501 to android registers (no \(AndroidAlertSettings.accountSetting))")
        }
        if let fcm = configuration.hapi.fcm {
            try checkCAFile(fcm.extraCAFile, HapiPushSettings.fcmNames.caFile)
            plan.append("POST /v1/push: android through FCM project \(fcm.account.projectId) (service account read)")
        } else {
            plan.append("POST /v1/push: answer 501 to android (no \(SettingsSource.displayName(HapiPushSettings.fcmNames.serviceAccountPath)))")
        }
        if let gateway = configuration.gateway {
            if !configuration.dryRun { try gateway.checkFCMProject(configuration) }
            plan.append("serve the Orca-compatible gateway for \(gateway.publicURL), topic \(gateway.apnsTopic), "
                        + "coalescing \(gateway.coalesceMs) ms")
        } else {
            plan.append("serve no gateway routes")
        }
        let clients = configuration.clientAddresses
        plan.append("take the client address from " + (clients.trustedProxyHops == 0 ? "the socket peer"
                    : "X-Forwarded-For, \(clients.trustedProxyHops) proxy hop(s) from the right, when the peer is "
                      + (clients.trustedProxies.map { $0.map(\.description).joined(separator: ", ") } ?? "anyone"))
                    + "; an IPv6 client is its /\(clients.ipv6PrefixBits)")
        plan.append("log at \(configuration.logLevel) and above")
        return plan
    }

    /// A CA file loads into a TLS context as the provider clients load it.
    private static func checkCAFile(_ path: String?, _ name: String) throws(ConfigurationError) {
        guard let path else { return }
        do {
            _ = try TLSContext.client(extraCAFile: path, alpn: ["h2"])
        } catch {
            throw ConfigurationError(setting: SettingsSource.displayName(name), problem: "names no usable PEM certificate file: \(error)")
        }
    }

    /// A file the relay appends to exists and is writable, or its directory is.
    private static func checkWritable(_ path: String?, _ name: String) throws(ConfigurationError) {
        guard let path else { return }
        let directory = (path as NSString).deletingLastPathComponent
        let writable = FileManager.default.fileExists(atPath: path)
            ? access(path, W_OK) == 0 : access(directory.isEmpty ? "." : directory, W_OK | X_OK) == 0
        guard writable else { throw ConfigurationError(setting: SettingsSource.displayName(name), problem: "names a file that cannot be written") }
    }
}
