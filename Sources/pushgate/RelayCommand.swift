import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateProviders

/// `pushgate relay …`: acts as a host against a signed relay (protocol/signed-relay.md).
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

    private enum Action: String {
        case register, unregister, send, resend
    }

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        // Every usage error is found before any file is read or request sent.
        guard let action = arguments.nextPositional().flatMap(Action.init(rawValue:)) else {
            throw UsageError("expected register, unregister, send or resend")
        }
        let relay = try arguments.requiredOption("relay")
        guard relay.hasPrefix("http://") || relay.hasPrefix("https://") else {
            throw UsageError("--relay must be an http:// or https:// URL")
        }
        let reply = switch action {
        case .register, .unregister: try register(&arguments, relay: relay, unregister: action == .unregister)
        case .send: try send(&arguments, relay: relay)
        case .resend: try resend(&arguments, relay: relay)
        }
        print("\(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        return reply.isSuccess ? 0 : 1
    }

    private static func register(_ arguments: inout ArgumentList, relay: String, unregister: Bool) throws -> RelayReply {
        let keyPath = try arguments.requiredOption("key")
        let token = try arguments.requiredOption("token")
        let liveActivity = try kind(arguments.option("kind"))
        try arguments.finish()
        let client = try SignedRelayClient(baseURL: relay, key: ToolFile.privateKey(keyPath))
        return try post(relay) {
            switch (unregister, liveActivity) {
            case (false, false): try await client.registerToken(token)
            case (false, true): try await client.registerLiveActivityToken(token)
            case (true, false): try await client.unregisterToken(token)
            case (true, true): try await client.unregisterLiveActivityToken(token)
            }
        }
    }

    private static func send(_ arguments: inout ArgumentList, relay: String) throws -> RelayReply {
        let keyPath = try arguments.requiredOption("key")
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
        let key = try ToolFile.privateKey(keyPath)
        let request = try RelayRequestSigner(key: key).send(
            tokens: tokens, title: title, body: body, badge: badge, collapseId: collapseId,
            environment: environment, data: data, ts: SystemClock().nowMilliseconds)
        if let savePath { try ToolFile.createSecret(savePath, contents: request) }
        let client = SignedRelayClient(baseURL: relay, key: key)
        return try post(relay) { try await client.post("send", request) }
    }

    /// Posts a saved request byte for byte, e.g. to show that the relay refuses a replay.
    private static func resend(_ arguments: inout ArgumentList, relay: String) throws -> RelayReply {
        let endpoint = try arguments.requiredOption("endpoint")
        let requestPath = try arguments.requiredOption("request")
        try arguments.finish()
        let body = try ToolFile.read(requestPath)
        // The request carries its own key and signature; the client's key signs nothing here.
        let client = SignedRelayClient(baseURL: relay, key: P256PrivateKey())
        return try post(relay) { try await client.post(endpoint, body) }
    }

    /// Waits for a request; a failure before any answer names the relay and the cause.
    private static func post(_ relay: String, _ request: @escaping @Sendable () async throws -> RelayReply) throws -> RelayReply {
        do {
            return try AsyncBridge.wait(request)
        } catch {
            throw ToolFailure("no answer from \(relay): \(error.localizedDescription)")
        }
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
