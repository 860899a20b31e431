import PushgateCore

/// Checks one `messages:send` request the way FCM HTTP v1 does, in a fixed order: path and
/// method, bearer access token, project, content type, body shape, target token, `data` (string
/// values, no reserved keys, at most 4096 bytes), `notification` members, `android` members
/// (with `android.notification`'s; FCMMessageValidator+Notification.swift).
///
/// - Important: protocol/hapi-push.md §8 — FCM refuses data over 4096 bytes with a 400 that does not
///   name the token; the client keeps such a row.
struct FCMMessageValidator {
    /// What the validator decided before any per-token script applies.
    struct Verdict {
        var error: FakeFCMError?
        /// The project named by the path, when the path had the send form.
        var projectId: String?
        /// `message.token`, when present.
        var deviceToken: String?
        /// The `message` object, when the body had one.
        var message: JSONObject?
    }

    /// The largest `data` map FCM accepts: the UTF-8 bytes of every key and value.
    static let dataLimit = 4096
    private static let messageMembers: Set<String> = [
        "name", "token", "topic", "condition", "data", "notification", "android", "apns", "webpush", "fcm_options",
    ]
    private static let androidMembers: Set<String> = [
        "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options", "direct_boot_ok",
    ]

    let projectId: String?

    /// `isAuthorized` judges the access token that follows `Bearer `.
    func validate(_ request: FakeHTTP2Request, isAuthorized: (String) -> Bool) -> Verdict {
        guard request.method == "POST", let project = Self.project(inSendPath: request.path) else {
            return Verdict(error: .notFound)
        }
        var verdict = Verdict(projectId: project)
        func fail(_ error: FakeFCMError) -> Verdict {
            verdict.error = error
            return verdict
        }
        guard let authorization = request.header("authorization"), authorization.utf8.count > 7,
              authorization.utf8.prefix(7).elementsEqual("Bearer ".utf8), isAuthorized(String(authorization.dropFirst(7))) else {
            return fail(.unauthenticated)
        }
        if let projectId, project != projectId { return fail(.notFound) }
        guard request.header("content-type")?.hasPrefix("application/json") == true,
              let body = (try? JSONValue.parse(request.body))?.objectValue else {
            return fail(.invalidArgument("Invalid JSON payload received.", field: "message"))
        }
        if let unknown = body.keys.first(where: { $0 != "message" && $0 != "validate_only" }) {
            return fail(.invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\".", field: unknown))
        }
        guard let message = body["message"]?.objectValue else {
            return fail(.invalidArgument("Message is required.", field: "message"))
        }
        verdict.message = message
        if let unknown = message.keys.first(where: { !Self.messageMembers.contains($0) }) {
            return fail(.invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\" at 'message'.", field: "message.\(unknown)"))
        }
        guard let token = message["token"]?.stringValue, !token.isEmpty, message["topic"] == nil, message["condition"] == nil else {
            return fail(.invalidArgument("Recipient of the message is not set.", field: "message"))
        }
        verdict.deviceToken = token
        if let error = Self.checkData(message["data"])
            ?? Self.checkMembers(message["notification"], at: "message.notification", Self.notificationMembers)
            ?? Self.checkAndroid(message["android"]) { return fail(error) }
        return verdict
    }

    /// The `<id>` of `/v1/projects/<id>/messages:send`.
    static func project(inSendPath path: String) -> String? {
        let prefix = "/v1/projects/"
        let suffix = "/messages:send"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.utf8.count > prefix.utf8.count + suffix.utf8.count else { return nil }
        let project = String(path.dropFirst(prefix.count).dropLast(suffix.count))
        return project.contains("/") ? nil : project
    }

    private static func checkData(_ value: JSONValue?) -> FakeFCMError? {
        guard let value else { return nil }
        guard let data = value.objectValue else { return .invalidArgument("Invalid value at 'message.data'.", field: "message.data") }
        var bytes = 0
        for (key, value) in data.members {
            guard let text = value.stringValue else {
                return .invalidArgument("Invalid value at 'message.data[\(key)]' (TYPE_STRING).", field: "message.data[\(key)]")
            }
            if ["from", "message_type", "collapse_key"].contains(key) || key.hasPrefix("google.") || key.hasPrefix("gcm.") {
                return .invalidArgument("Invalid data payload key: \(key)", field: "message.data")
            }
            bytes += key.utf8.count + text.utf8.count
        }
        guard bytes <= dataLimit else { return .invalidArgument("Android message is too big", field: "message.data") }
        return nil
    }

    private static func checkAndroid(_ value: JSONValue?) -> FakeFCMError? {
        guard let value else { return nil }
        guard let android = value.objectValue else { return .invalidArgument("Invalid value at 'message.android'.", field: "message.android") }
        if let unknown = android.keys.first(where: { !androidMembers.contains($0) }) {
            return .invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\" at 'message.android'.", field: "message.android.\(unknown)")
        }
        if let priority = android["priority"], priority != "HIGH", priority != "NORMAL" {
            return .invalidArgument("Invalid value at 'message.android.priority'.", field: "message.android.priority")
        }
        for key in ["restricted_package_name", "collapse_key", "ttl"] where android[key] != nil && android[key]?.stringValue == nil {
            return .invalidArgument("Invalid value at 'message.android.\(key)' (TYPE_STRING).", field: "message.android.\(key)")
        }
        if let bootOK = android["direct_boot_ok"], bootOK.boolValue == nil {
            return .invalidArgument("Invalid value at 'message.android.direct_boot_ok' (TYPE_BOOL).", field: "message.android.direct_boot_ok")
        }
        return checkMembers(android["notification"], at: "message.android.notification", androidNotificationMembers)
    }
}
