import PushgateCommandLine
import PushgateCore
import PushgateHTTP

/// `pushgate gateway …`: acts as an Orca desktop host against a gateway (protocol/gateway.md).
///
/// Prints the gateway's status and JSON answer on one line (`200 {"registrationId":"…"}`);
/// exit 0 on 2xx, 1 otherwise. A challenge that fails a host check (§2.9) is refused with the
/// check's name and no proof is sent.
enum GatewayCommand {
    static let usage = """
        pushgate gateway key --out FILE
        pushgate gateway challenge --gateway URL --key FILE [--origin ORIGIN] [--session FILE]
        pushgate gateway register --gateway URL --key FILE --device-id ID --token TOKEN [--platform ios|android] [--env sandbox|production] [--origin ORIGIN] [--session FILE]
        pushgate gateway send --gateway URL --key FILE --registrations ID[,ID…] --title TEXT [--body TEXT] [--agent-state needs-input|finished|none] [--source agent-task-complete|terminal-bell|plugin] [--notification-id ID] [--seq N] [--epoch ID] [--worktree ID] [--origin ORIGIN] [--session FILE]
        """

    private enum Action: String {
        case key, challenge, register, send
    }

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        guard let action = arguments.nextPositional().flatMap(Action.init(rawValue:)) else {
            throw UsageError("expected key, challenge, register or send")
        }
        if action == .key {
            let path = try arguments.requiredOption("out")
            try arguments.finish()
            let pair = try GatewayKeyFile.create(path)
            print(JSONObject([("hostPublicKeyB64", .string(Base64.encode(pair.publicKey))),
                              ("hostFingerprint", .string(HostFingerprint.of(publicKey: pair.publicKey)))]).serialized())
            return 0
        }
        let gateway = try arguments.requiredOption("gateway")
        guard gateway.hasPrefix("http://") || gateway.hasPrefix("https://") else {
            throw UsageError("--gateway must be an http:// or https:// URL")
        }
        let keyPath = try arguments.requiredOption("key")
        let origin = arguments.option("origin") ?? gateway
        if let problem = GatewayOrigin.problem(with: origin) { throw UsageError("the gateway origin \(problem) (see --origin)") }
        let sessionFile = arguments.option("session")
        let request: (String, JSONValue)?
        switch action {
        case .register: request = ("/v1/devices", try registration(&arguments))
        case .send: request = ("/v1/send", try notification(&arguments))
        default: request = nil
        }
        try arguments.finish()
        let client = GatewayHostClient(baseURL: gateway, origin: origin, keyPair: try GatewayKeyFile.read(keyPath), sessionFile: sessionFile)
        defer { client.shutdown() }
        let reply: HTTPClientReply
        do {
            reply = try AsyncBridge.wait {
                if let (path, body) = request { return try await client.authenticated(path, body) }
                let (reply, token) = try await client.handshake()
                guard token != nil, let json = try? JSONValue.parse(reply.body), let object = json.objectValue else { return reply }
                // The token stays out of the output; it is in the session file when one was given.
                var shown = object
                shown["sessionToken"] = nil
                return HTTPClientReply(status: reply.status, body: JSONValue.object(shown).serializedBytes())
            }
        } catch let failure as HostCheckFailure {
            throw ToolFailure("\(failure.description); no proof was sent")
        } catch let error as HTTPClientError {
            throw ToolFailure("no answer from \(gateway): \(error.description)")
        }
        print("\(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        return (200..<300).contains(reply.status) ? 0 : 1
    }

    private static func registration(_ arguments: inout ArgumentList) throws -> JSONValue {
        let deviceId = try arguments.requiredOption("device-id")
        let token = try arguments.requiredOption("token")
        let platform = arguments.option("platform") ?? "ios"
        guard platform == "ios" || platform == "android" else { throw UsageError("--platform must be ios or android") }
        let environment = arguments.option("env") ?? (platform == "ios" ? "production" : nil)
        if platform == "android", environment != nil { throw UsageError("--env is for iOS registrations only") }
        var object = JSONObject([("v", 1), ("deviceId", .string(deviceId)), ("platform", .string(platform)), ("token", .string(token))])
        if let environment { object["apnsEnvironment"] = .string(environment) }
        object["filter"] = ["sources": ["agent-task-complete", "terminal-bell", "plugin"], "agentStates": ["needs-input", "finished"]]
        return .object(object)
    }

    private static func notification(_ arguments: inout ArgumentList) throws -> JSONValue {
        let ids = try arguments.requiredOption("registrations").split(separator: ",").map { JSONValue.string(String($0)) }
        let title = try arguments.requiredOption("title")
        let body = arguments.option("body") ?? ""
        let agentState: JSONValue
        switch arguments.option("agent-state") ?? "needs-input" {
        case "needs-input": agentState = "needs-input"
        case "finished": agentState = "finished"
        case "none": agentState = .null
        default: throw UsageError("--agent-state must be needs-input, finished or none")
        }
        let seq = try arguments.option("seq").map { text throws(UsageError) in
            guard let number = Int64(text), number >= 0 else { throw UsageError("--seq must be a whole number") }
            return number
        } ?? SystemClock().nowMilliseconds
        var note = JSONObject()
        if let id = arguments.option("notification-id") { note["notificationId"] = .string(id) }
        note["notificationSeq"] = .integer(seq)
        note["notificationEpoch"] = .string(arguments.option("epoch") ?? "pushgate-cli")
        note["source"] = .string(arguments.option("source") ?? "agent-task-complete")
        note["agentState"] = agentState
        note["title"] = .string(title)
        note["body"] = .string(body)
        if let worktree = arguments.option("worktree") { note["worktreeId"] = .string(worktree) }
        return .object(JSONObject([("v", 1), ("registrationIds", .array(ids)), ("notification", .object(note))]))
    }
}
