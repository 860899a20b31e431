import PushgateCommandLine
import PushgateCore

/// `pushgate identity new|show`: a host's P-256 identity key.
enum IdentityCommand {
    static let usage = """
        pushgate identity new --out FILE
        pushgate identity show --key FILE
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        switch arguments.nextPositional() {
        case "new":
            let path = try arguments.requiredOption("out")
            try arguments.finish()
            let key = P256PrivateKey()
            try ToolFile.createSecret(path, contents: Array((key.privateJWK.serialized() + "\n").utf8))
            print(key.publicKey.serverId)
        case "show":
            let path = try arguments.requiredOption("key")
            try arguments.finish()
            let key = try ToolFile.publicKey(path)
            let summary: JSONObject = ["serverId": .string(key.serverId), "publicJwk": .object(key.jwk)]
            print(summary.serialized())
        default:
            throw UsageError("expected new or show")
        }
        return 0
    }
}
