import PushgateCore
import PushgateProviders

/// `pushgate relay …`: acts as a host against a signed relay (relay-protocol.md).
///
/// Prints the relay's status and JSON answer on one line (`200 {"ok":true}`); exit 0 on 2xx,
/// 1 otherwise.
enum RelayCommand {
    static let usage = """
        pushgate relay register --relay URL --key FILE --token HEX [--kind alert|liveactivity]
        pushgate relay unregister --relay URL --key FILE --token HEX [--kind alert|liveactivity]
        pushgate relay send --relay URL --key FILE --tokens HEX[,HEX…] --title TEXT [--body TEXT] [--badge N] [--collapse-id ID] [--env production|sandbox] [--data JSON] [--save-request FILE]
        pushgate relay resend --relay URL --endpoint NAME --request FILE
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let action = arguments.nextPositional()
        let relay = try arguments.requiredOption("relay")
        let reply: RelayReply
        switch action {
        case "register", "unregister":
            let client = try SignedRelayClient(baseURL: relay, key: ToolFile.privateKey(arguments.requiredOption("key")))
            let token = try arguments.requiredOption("token")
            let liveActivity = try kind(arguments.option("kind"))
            try arguments.finish()
            reply = try AsyncBridge.wait {
                switch (action, liveActivity) {
                case ("register", false): try await client.registerToken(token)
                case ("register", true): try await client.registerLiveActivityToken(token)
                case (_, false): try await client.unregisterToken(token)
                case (_, true): try await client.unregisterLiveActivityToken(token)
                }
            }
        case "send":
            reply = try send(&arguments, relay: relay)
        case "resend":
            let endpoint = try arguments.requiredOption("endpoint")
            let body = try ToolFile.read(arguments.requiredOption("request"))
            try arguments.finish()
            let client = SignedRelayClient(baseURL: relay, key: P256PrivateKey())
            reply = try AsyncBridge.wait { try await client.post(endpoint, body) }
        default:
            throw UsageError("expected register, unregister, send or resend")
        }
        print("\(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        return reply.isSuccess ? 0 : 1
    }

    private static func send(_ arguments: inout ArgumentList, relay: String) throws -> RelayReply {
        let key = try ToolFile.privateKey(arguments.requiredOption("key"))
        let tokens = try arguments.requiredOption("tokens").split(separator: ",").map(String.init)
        let title = try arguments.requiredOption("title")
        let body = arguments.option("body")
        let badge = try arguments.option("badge").map { text throws(UsageError) in
            guard let number = Int64(text) else { throw UsageError("--badge must be an integer") }
            return number
        }
        let collapseId = arguments.option("collapse-id")
        let environment = arguments.option("env")
        let data = try arguments.option("data").map(parseData) ?? []
        let savePath = arguments.option("save-request")
        try arguments.finish()
        let signer = RelayRequestSigner(key: key)
        let request = try signer.send(tokens: tokens, title: title, body: body, badge: badge, collapseId: collapseId,
                                      environment: environment, data: data, ts: SystemClock().nowMilliseconds)
        if let savePath { try ToolFile.createSecret(savePath, contents: request) }
        let client = SignedRelayClient(baseURL: relay, key: key)
        return try AsyncBridge.wait { try await client.post("send", request) }
    }

    private static func kind(_ text: String?) throws(UsageError) -> Bool {
        switch text {
        case nil, "alert": false
        case "liveactivity": true
        default: throw UsageError("--kind must be alert or liveactivity")
        }
    }

    private static func parseData(_ text: String) throws -> [(key: String, value: String)] {
        guard let object = try? JSONValue.parse(text).objectValue else { throw UsageError("--data must be a JSON object") }
        return try object.members.map { member in
            guard let value = member.value.stringValue else { throw UsageError("--data values must be strings") }
            return (member.key, value)
        }
    }
}
