import Foundation
import PushgateCore
import PushgateHTTP
import PushgateProviders

/// One FCM service account of the relay and where its requests go: hapi's Android lane
/// (`FCM_*`, docs/relay.md "hapi's route") and the signed routes' Android tokens (`ANDROID_FCM_*`,
/// docs/relay.md "Android tokens"). Lanes naming the same account share one client (``RelayFCMClients``).
public struct FCMAccountSettings: Sendable {
    public var account: ServiceAccount
    /// `restricted_package_name` of every message; `nil` sends none.
    public var packageName: String?
    public var origin: HTTP2Origin
    /// Where assertions are exchanged; `nil` uses the account's `token_uri`.
    public var tokenURI: String?
    public var extraCAFile: String?

    /// The setting names of one account: the service-account file, the package name, and the
    /// origin, token URI and CA file that point it at a fake FCM (a Pushgate extension).
    struct Names {
        let serviceAccountPath: String
        let packageName: String
        let origin: String
        let tokenURI: String
        let caFile: String

        var all: [String] { [serviceAccountPath, packageName, origin, tokenURI, caFile] }
    }

    /// The account `names` configure; `nil` when the service-account file is not set (then
    /// none of the other settings may be).
    static func load(_ source: SettingsSource, _ names: Names, defaultPackageName: String?) throws(ConfigurationError) -> Self? {
        guard let path = source.value(names.serviceAccountPath) else {
            if let stray = names.all.dropFirst().first(where: { source.value($0) != nil }) {
                throw ConfigurationError(setting: SettingsSource.displayName(stray), problem: "needs \(names.serviceAccountPath)")
            }
            return nil
        }
        let account: ServiceAccount
        do {
            account = try ServiceAccountFile.load(path: path)
        } catch {
            throw ConfigurationError(setting: SettingsSource.displayName(names.serviceAccountPath), problem: error.problem)
        }
        let origin = try RelayConfiguration.origin(source, names.origin, default: FCMConfiguration.googleOrigin)
        let tokenURI = source.value(names.tokenURI)
        if let tokenURI, (try? HTTPSEndpoint(url: tokenURI)) == nil {
            throw ConfigurationError(setting: SettingsSource.displayName(names.tokenURI), problem: "must be an https URL such as https://127.0.0.1:4443/token")
        }
        let caFile = source.value(names.caFile)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError(setting: SettingsSource.displayName(names.caFile), problem: "names a file that cannot be read")
        }
        return Self(account: account, packageName: source.value(names.packageName) ?? defaultPackageName,
                    origin: origin, tokenURI: tokenURI, extraCAFile: caFile)
    }
}
