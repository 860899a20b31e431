import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// The operator's own APNs credentials, for `PUSHGATE_IOS_PUSH=apns`.
public struct DirectAPNsSettings: Sendable {
    public var configuration: APNsConfiguration
    /// The app's bundle id (the `apns-topic`).
    public var bundleId: String

    /// Reads the `PUSHGATE_APNS_*` settings; throws naming the first missing or invalid one.
    static func resolve(_ value: (SettingName) -> String?) throws -> DirectAPNsSettings {
        func required(_ name: SettingName) throws -> String {
            guard let text = value(name) else {
                throw HostSettingsError("\(name.environment) (settings key \(name.key)) is required when PUSHGATE_IOS_PUSH=apns")
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
                throw HostSettingsError("PUSHGATE_APNS_P8_PATH names a file that cannot be read")
            }
            pem = text
        } else {
            throw HostSettingsError("PUSHGATE_APNS_P8 or PUSHGATE_APNS_P8_PATH is required when PUSHGATE_IOS_PUSH=apns")
        }
        guard let key = try? P256PrivateKey(pkcs8PEM: pem) else {
            throw HostSettingsError("the APNs .p8 key (PUSHGATE_APNS_P8 / _P8_PATH) is not a PKCS#8 P-256 private key")
        }
        let caFile = value(.apnsCAFile)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw HostSettingsError("PUSHGATE_APNS_CA_FILE names a file that cannot be read")
        }
        return DirectAPNsSettings(
            configuration: APNsConfiguration(
                privateKey: key, keyId: keyId, teamId: teamId,
                productionOrigin: try origin(value(.apnsHostProduction), .apnsHostProduction, APNsConfiguration.appleProduction),
                sandboxOrigin: try origin(value(.apnsHostSandbox), .apnsHostSandbox, APNsConfiguration.appleSandbox),
                extraCAFile: caFile),
            bundleId: bundleId)
    }

    private static func origin(_ raw: String?, _ name: SettingName, _ fallback: HTTP2Origin) throws -> HTTP2Origin {
        guard let raw else { return fallback }
        guard let origin = try? HTTP2Origin(url: raw.hasPrefix("https://") ? raw : "https://" + raw) else {
            throw HostSettingsError("\(name.environment) must be an https origin such as https://127.0.0.1:4443")
        }
        return origin
    }
}
