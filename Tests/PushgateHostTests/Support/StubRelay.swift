import PushgateCore
import PushgateHTTP
import Synchronization

/// A signed relay stand-in on loopback for one host, without signature checks, that answers
/// per-token `reason`s: a registration binds its token (per kind) unless registrations are
/// refused, an unregistration unbinds it; a `send` or `live-activity` request answers one row
/// per token — `ok` when bound, else `{"ok":false,"reason":"not_bound","retryable":true}`, or the
/// row a test gave the token (``answer(_:with:)``) — and a send answers 500 when its title is in
/// `failTitles`. It records every request.
final class StubRelay: Sendable {
    /// One request as received.
    struct Request: Sendable {
        var endpoint: String
        var body: JSONValue
    }

    private struct State {
        /// `kind` + " " + token.
        var bound: Set<String> = []
        var refusal: (status: Int, error: String)?
        /// Rows to answer sends with, by token.
        var rows: [String: JSONObject] = [:]
        var requests: [Request] = []
    }

    private final class Box: Sendable {
        let state = Mutex(State())
    }

    private let server: HTTPServer
    private let box = Box()

    var url: String { "http://127.0.0.1:\(server.port)" }
    /// The bodies of every send received.
    var sends: [JSONValue] { requests("send") }

    init(failTitles: Set<String> = []) throws {
        var router = Router()
        let box = box
        for (endpoint, kind, binds) in [("register-token", "alert", true), ("unregister-token", "alert", false),
                                        ("register-live-activity-token", "liveactivity", true),
                                        ("unregister-live-activity-token", "liveactivity", false)] {
            router.post("/v1/push/\(endpoint)") { request in
                guard let body = try? JSONValue.parse(request.body), let token = body["token"]?.stringValue else {
                    return HTTPResponse(status: 400)
                }
                let refusal = box.state.withLock { state -> (status: Int, error: String)? in
                    state.requests.append(Request(endpoint: endpoint, body: body))
                    if binds, let refusal = state.refusal { return refusal }
                    if binds { state.bound.insert(kind + " " + token) } else { state.bound.remove(kind + " " + token) }
                    return nil
                }
                guard let refusal else { return HTTPResponse.json(200, Array(#"{"ok":true}"#.utf8)) }
                return HTTPResponse.json(refusal.status, JSONValue.object(JSONObject([("error", .string(refusal.error))])).serializedBytes())
            }
        }
        for (endpoint, kind) in [("send", "alert"), ("live-activity", "liveactivity")] {
            router.post("/v1/push/\(endpoint)") { request in
                guard let body = try? JSONValue.parse(request.body) else { return HTTPResponse(status: 400) }
                let (bound, answers) = box.state.withLock { state in
                    state.requests.append(Request(endpoint: endpoint, body: body))
                    return (state.bound, state.rows)
                }
                if endpoint == "send", let title = body["title"]?.stringValue, failTitles.contains(title) {
                    return HTTPResponse.json(500, Array(#"{"error":"internal"}"#.utf8))
                }
                let rows = (body["tokens"]?.arrayValue ?? []).compactMap(\.stringValue).map { token -> JSONValue in
                    if var row = answers[token] {
                        row["token"] = .string(token)
                        return .object(row)
                    }
                    return bound.contains(kind + " " + token) ? .object(JSONObject([("token", .string(token)), ("ok", true)]))
                        : .object(JSONObject([("token", .string(token)), ("ok", false), ("reason", "not_bound"), ("retryable", true)]))
                }
                return HTTPResponse.json(200, JSONValue.object(JSONObject([("results", .array(rows))])).serializedBytes())
            }
        }
        server = try HTTPServer(router: router)
    }

    /// The bodies of the requests received on `endpoint` (`send`, `register-token`, …), in order.
    func requests(_ endpoint: String) -> [JSONValue] {
        box.state.withLock { $0.requests.filter { $0.endpoint == endpoint }.map(\.body) }
    }

    /// Registrations received on `endpoint` for `token`, refused ones included.
    func registrations(_ token: String, _ endpoint: String = "register-token") -> Int {
        requests(endpoint).filter { $0["token"]?.stringValue == token }.count
    }

    /// Removes the binding of `token` of `kind` (`alert`, `liveactivity`) behind the host's back.
    func unbind(_ token: String, kind: String = "alert") { _ = box.state.withLock { $0.bound.remove(kind + " " + token) } }

    /// Answers sends to `token` with `row` (`token` added) from now on; nil answers by the binding again.
    func answer(_ token: String, with row: JSONObject?) { box.state.withLock { $0.rows[token] = row } }

    /// Refuses every registration with `status` and `error` from now on; nil accepts them again.
    func refuseRegistrations(_ refusal: (status: Int, error: String)?) { box.state.withLock { $0.refusal = refusal } }

    func stop() { server.stop() }
}
