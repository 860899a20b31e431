import Foundation
import PushgateHTTP

extension ClientAddressPolicy {
    /// Reads `TRUST_PROXY_HOPS` (else the gateway's `gatewayHops` when above 0, else 1 for the
    /// retired `TRUST_PROXY=true`), `TRUSTED_PROXY_ADDRESSES` and `IPV6_PREFIX_BITS`; notes on
    /// retired or risky combinations go to `warnings`.
    init(_ source: SettingsSource, gatewayHops: Int, warnings: inout [String]) throws(ConfigurationError) {
        let hops: Int? = source.value("TRUST_PROXY_HOPS") == nil ? nil : try source.integer("TRUST_PROXY_HOPS", default: 0, in: 0...8)
        let legacy = try source.bool("TRUST_PROXY")
        trustedProxyHops = hops ?? (gatewayHops > 0 ? gatewayHops : legacy ? 1 : 0)
        if legacy {
            warnings.append("\(SettingsSource.displayName("TRUST_PROXY")) is retired: the relay trusts \(trustedProxyHops) proxy hop(s); "
                + "set \(SettingsSource.displayName("TRUST_PROXY_HOPS")) instead (docs/relay.md)")
        }
        if hops != nil, gatewayHops > 0, gatewayHops != trustedProxyHops {
            warnings.append("\(GatewayConfiguration.prefix)TRUSTED_PROXY_HOPS is ignored: "
                + "\(SettingsSource.displayName("TRUST_PROXY_HOPS")) applies to every route")
        }
        if let list = source.value("TRUSTED_PROXY_ADDRESSES") {
            let networks = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !networks.isEmpty else { throw Self.badAddresses }
            trustedProxies = try networks.map { text throws(ConfigurationError) in
                guard let network = IPNetwork(cidr: text) else { throw Self.badAddresses }
                return network
            }
        } else if trustedProxyHops > 0 {
            warnings.append("any peer may choose its client address by X-Forwarded-For, and the proxy in front is held to "
                + "MAX_CONNECTIONS_PER_IP connections like any client: set "
                + "\(SettingsSource.displayName("TRUSTED_PROXY_ADDRESSES")) to the proxies in front (docs/security.md, M2, M6)")
        }
        ipv6PrefixBits = try source.integer("IPV6_PREFIX_BITS", default: ipv6PrefixBits, in: 32...128)
    }

    private static var badAddresses: ConfigurationError {
        ConfigurationError(setting: SettingsSource.displayName("TRUSTED_PROXY_ADDRESSES"),
                           problem: "must be a comma-separated list of IP networks such as 10.0.0.0/8,2001:db8::/32")
    }
}
