import PushgateCore

extension FakeAPNs {
    /// The provider-token signing key as APNs knows it: its public half, key id and team id.
    public struct ProviderCredentials: Sendable {
        public let publicKey: P256PublicKey
        /// The `kid` tokens must carry.
        public let keyId: String
        /// The `iss` tokens must carry.
        public let teamId: String

        public init(publicKey: P256PublicKey, keyId: String, teamId: String) {
            self.publicKey = publicKey
            self.keyId = keyId
            self.teamId = teamId
        }

        /// From the `.p8` file Apple issues (a PKCS#8 PEM private key; only its public half is kept).
        public init(p8PEM: String, keyId: String, teamId: String) throws {
            self.init(publicKey: try P256PrivateKey(pkcs8PEM: p8PEM).publicKey, keyId: keyId, teamId: teamId)
        }
    }
}
