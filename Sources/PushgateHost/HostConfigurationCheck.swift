import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders
import PushgateStore

/// `pushgate-host --check-config`: resolves every setting as a start would, without creating or
/// writing anything (``HostSettings/inspect(environment:)``), reads every file a setting names
/// (the `.p8` key, the FCM service accounts, the CA files, settings.json and its identity,
/// `host.sqlite`), and prints the settings given and what the host would do, secrets left out.
enum HostConfigurationCheck {
    /// Runs the check; returns 0 when every setting can be used, 2 with the reasons when not.
    static func run(environment: [String: String]) -> Int32 {
        do {
            let (settings, stored, isFirstStart) = try HostSettings.inspect(environment: environment)
            let modes = HapiModes(settings: settings)
            var problems = settings.diagnostics + modes.problems
            var plan = try home(settings, isFirstStart: isFirstStart)
            plan.append("listen on \(settings.listenHost):\(settings.listenPort) for the API (bearer token: set, not shown)")
            plan.append(settings.metricsListen.map { "serve GET /metrics on \($0.host):\($0.port)" } ?? "serve no metrics")
            let relay = settings.relayURL.map { "through the relay \($0)" }
                ?? "through the relay, but no PUSHGATE_PUSH_RELAY_URL is set: none can leave"
            plan.append("iOS alerts: " + (settings.directAPNs.map { apns in
                "straight to APNs as key \(apns.configuration.keyId) of team \(apns.configuration.teamId) (a P-256 .p8 key, read), "
                    + "topic \(apns.bundleId)"
            } ?? (settings.iosPushMode == .relay ? relay : "off")))
            plan.append("Android alerts: " + (settings.directFCMAlerts.map { fcm in
                "straight to FCM project \(fcm.account.projectId) (service account read), channel \(fcm.channelId)"
            } ?? (settings.androidAlertPushMode == .relay ? relay : "off")))
            plan.append("encrypted path: iOS \(describe(modes.ios)), Android \(describe(modes.android))")
            for (setting, path) in [(SettingName.apnsCAFile, settings.directAPNs?.configuration.http2.extraCAFile),
                                    (SettingName.fcmCAFile, settings.hapi.fcmCAFile)] {
                if let problem = caFileProblem(path) { problems.append("\(setting.label) \(problem)") }
            }
            // Read only when a direct FCM client is made: checked here, so a start does not find them broken.
            if let origin = settings.hapi.fcmOrigin, (try? HTTP2Origin(url: origin)) == nil {
                problems.append("\(SettingName.fcmOrigin.label) must be an https origin such as https://127.0.0.1:4443")
            }
            if let tokenURI = settings.hapi.fcmTokenURI, (try? HTTPSEndpoint(url: tokenURI)) == nil {
                problems.append("\(SettingName.fcmTokenURI.label) must be an https URL such as https://127.0.0.1:4443/token")
            }
            plan.append("outbox: keep a push up to \(settings.outbox.deadlineMs / 1_000) s, at most \(settings.outbox.maxEntries) pushes")
            plan.append("log at \(settings.logLevel) and above")
            var report = "pushgate-host \(PushgateVersion.current): "
                + (problems.isEmpty ? "the configuration is valid\n" : "the configuration has problems\n")
            report += "\nsettings given:\n"
            for row in SettingName.table {
                guard let (value, origin) = HostSettings.source(of: row, environment, stored: stored) else { continue }
                report += "  \(row.environment) = \(row.isSecret ? "(secret, not shown)" : value)  [\(origin)]\n"
            }
            report += "\nthe host would:\n" + plan.map { "  \($0)\n" }.joined()
            if !settings.warnings.isEmpty { report += "\nwarnings:\n" + settings.warnings.map { "  \($0)\n" }.joined() }
            if !problems.isEmpty { report += "\nproblems:\n" + problems.map { "  \($0)\n" }.joined() }
            FileHandle.standardOutput.write(Data(report.utf8))
            return problems.isEmpty ? 0 : 2
        } catch {
            FileHandle.standardError.write(Data("pushgate-host --check-config: \(error)\n".utf8))
            return 2
        }
    }

    /// The home, the identity and `host.sqlite`; throws when a start could not use them.
    private static func home(_ settings: HostSettings, isFirstStart: Bool) throws -> [String] {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: settings.home, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue || access(settings.home, R_OK | W_OK | X_OK) != 0 {
            throw HostSettingsError("the host home \(settings.home) is not a directory this user can write (PUSHGATE_HOME)")
        }
        let database: String
        do {
            database = try SQLiteFile.check(path: settings.databasePath, latestVersion: Int(HostMigrations.all.last?.version ?? 0))
        } catch {
            throw HostSettingsError(error.description)
        }
        return [exists ? "use the home \(settings.home)" : "make the home \(settings.home) (mode 0700)",
                isFirstStart ? "make a new identity (signing key) on first start" : "sign as serverId \(settings.serverId)",
                "keep tokens, badges and the outbox in SQLite: \(database)"]
    }

    private static func describe(_ mode: HapiModes.IOS) -> String {
        switch mode {
        case .relay(let url): "through the relay \(url)"
        case .apns: "straight to APNs"
        case .off(let reason): "off (\(reason))"
        }
    }

    private static func describe(_ mode: HapiModes.Android) -> String {
        switch mode {
        case .relay(let url): "through the relay \(url)"
        case .fcm(let account): "straight to FCM project \(account.projectId) (service account read)"
        case .off(let reason): "off (\(reason))"
        }
    }

    /// Why a CA file does not load into a TLS context as the provider clients load it; nil when it does.
    private static func caFileProblem(_ path: String?) -> String? {
        guard let path else { return nil }
        do {
            _ = try TLSContext.client(extraCAFile: path, alpn: ["h2"])
            return nil
        } catch {
            return "names no usable PEM certificate file: \(error)"
        }
    }
}
