import PushgateCore

extension FakeFCM {
    /// The service account as Google knows it: the project, the account's email, the public half
    /// of its key, and the audience assertions must name.
    public struct Credentials: Sendable {
        public let projectId: String
        /// The `iss` assertions must carry.
        public let clientEmail: String
        /// The RSA public key (`BEGIN PUBLIC KEY`) assertions must verify under.
        public let publicKeyPEM: String
        /// The `aud` assertions must carry: the account's `token_uri`.
        public let audience: String

        public init(projectId: String, clientEmail: String, publicKeyPEM: String, audience: String) {
            self.projectId = projectId
            self.clientEmail = clientEmail
            self.publicKeyPEM = publicKeyPEM
            self.audience = audience
        }

        /// From a parsed service account key file (only its public half is kept).
        public init(account: ServiceAccount) throws {
            self.init(projectId: account.projectId, clientEmail: account.clientEmail,
                      publicKeyPEM: try account.privateKey.publicKeyPEM, audience: account.tokenURI)
        }
    }
}
