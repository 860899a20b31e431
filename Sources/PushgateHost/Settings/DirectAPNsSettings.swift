import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// The operator's own APNs credentials, for `PUSHGATE_IOS_PUSH=apns`.
public struct DirectAPNsSettings: Sendable {
    public var configuration: APNsConfiguration
    /// The app's bundle id (the `apns-topic`).
    public var bundleId: String

    /// The deadline of each direct APNs request.
    public static let requestTimeoutMilliseconds: Int64 = 10_000

    /// Reads the `PUSHGATE_APNS_*` settings; throws naming the first missing or invalid one.
    static func resolve(_ value: (SettingName) -> String?) throws -> DirectAPNsSettings {
        func required(_ name: SettingName) throws -> String {
            guard let text = value(name) else {
                throw HostSettingsError("\(name.label) is required when iosPushMode is apns")
            }
            return text
        }
        let keyId = try required(.apnsKeyId)
        let teamId = try required(.apnsTeamId)
        let bundleId = try required(.apnsBundleId)
        let pem: String
        if let inline = value(.apnsP8) {
            pem = inline.replacingOccurrences(of: "\\n", with: "\n")
        } else if let path = value(.apnsP8Path) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw HostSettingsError("apnsKeyP8Path (PUSHGATE_APNS_KEY_P8_PATH) names a file that cannot be read")
            }
            pem = text
        } else {
            throw HostSettingsError("apnsKeyP8Path (PUSHGATE_APNS_KEY_P8_PATH) or PUSHGATE_APNS_P8 is required when iosPushMode is apns")
        }
        guard let key = try? P256PrivateKey(pkcs8PEM: pem) else {
            throw HostSettingsError("the APNs .p8 key (apnsKeyP8Path / PUSHGATE_APNS_P8) is not a PKCS#8 P-256 private key")
        }
        let caFile = value(.apnsCAFile)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw HostSettingsError("PUSHGATE_APNS_CA_FILE names a file that cannot be read")
        }
        var configuration = APNsConfiguration(
            privateKey: key, keyId: keyId, teamId: teamId,
            productionOrigin: try origin(value(.apnsHostProduction), .apnsHostProduction, APNsConfiguration.appleProduction),
            sandboxOrigin: try origin(value(.apnsHostSandbox), .apnsHostSandbox, APNsConfiguration.appleSandbox),
            extraCAFile: caFile)
        // protocol/hapi-push.md §8: the host in apns mode gives each request 10 s.
        configuration.http2.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        return DirectAPNsSettings(configuration: configuration, bundleId: bundleId)
    }

    private static func origin(_ raw: String?, _ name: SettingName, _ fallback: HTTP2Origin) throws -> HTTP2Origin {
        guard let raw else { return fallback }
        guard let origin = try? HTTP2Origin(url: raw.hasPrefix("https://") ? raw : "https://" + raw) else {
            throw HostSettingsError("\(name.environment) must be an https origin such as https://127.0.0.1:4443")
        }
        return origin
    }
}
