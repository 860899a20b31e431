/// The exact strings a host signs and the relay verifies, per endpoint.
///
/// - Important: protocol/signed-relay.md §1 (table) and §5. Tokens are sorted by UTF-16 code units,
///   duplicates kept; numbers are written as JavaScript's `String(number)` writes them.
public enum SignedMessage {
    /// `POST /v1/push/register-token`: `ts.token.platform`.
    public static func registerToken(ts: Int64, token: String, platform: String) -> String {
        "\(ts).\(token).\(platform)"
    }

    /// `POST /v1/push/unregister-token` (Pushgate extension): `ts.token.platform.unregister`.
    public static func unregisterToken(ts: Int64, token: String, platform: String) -> String {
        "\(ts).\(token).\(platform).unregister"
    }

    /// `POST /v1/push/register-live-activity-token` and `unregister-live-activity-token` (the
    /// same string; only the path differs): `ts.token.ios.liveactivity`.
    public static func liveActivityToken(ts: Int64, token: String) -> String {
        "\(ts).\(token).ios.liveactivity"
    }

    /// `register-live-activity-token` and `unregister-live-activity-token` with `kind:"start"`
    /// (**extension**: a push-to-start token): `ts.token.ios.liveactivity.start`.
    public static func liveActivityStartToken(ts: Int64, token: String) -> String {
        "\(ts).\(token).ios.liveactivity.start"
    }

    /// `POST /v1/push/send`: `ts.` + sorted tokens joined by `,` + `.` + title.
    public static func send(ts: Int64, tokens: [String], title: String) -> String {
        "\(ts).\(sortedTokens(tokens)).\(title)"
    }

    /// `POST /v1/push/background` (**extension**): `ts.` + sorted tokens joined by `,` + `.background`.
    public static func background(ts: Int64, tokens: [String]) -> String {
        "\(ts).\(sortedTokens(tokens)).background"
    }

    /// `POST /v1/push/live-activity`:
    /// `ts.SORTED.event.status.eventVersion.updatedAt.ENDED.DISMISSAL.STALE`, then
    /// `.TITLE.WORKING.ITEMS` when the content state has a title, working count or items. A
    /// `start` (extension) signs the same shape with `start` as its event; its attributes and
    /// alert are not signed.
    public static func liveActivity(ts: Int64, push: LiveActivityPush) -> String {
        let state = push.contentState
        var parts = [
            String(ts), sortedTokens(push.tokens), push.event.rawValue, state.status.rawValue,
            String(state.eventVersion), JSNumber.format(state.updatedAt),
            state.endedAt.map(JSNumber.format) ?? "", push.dismissalDate.map { String($0) } ?? "",
            push.staleDate.map { String($0) } ?? "",
        ]
        if state.hasSummaryFields {
            parts += [state.title ?? "", state.workingCount.map { String($0) } ?? "", state.normalizedItemsJSON]
        }
        return parts.joined(separator: ".")
    }

    /// The tokens sorted by UTF-16 code units and joined by `,`.
    static func sortedTokens(_ tokens: [String]) -> String {
        tokens.sorted(by: UTF16Order.precedes).joined(separator: ",")
    }
}
