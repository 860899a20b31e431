import PushgateCore
import PushgateHTTP
import Synchronization

/// A relay stand-in on loopback: registrations answer 200; a send answers 500 when its title
/// is in `failTitles`, else 200 with every token accepted. It records the send bodies.
final class StubRelay: Sendable {
    private final class Recorder: Sendable {
        let bodies = Mutex<[JSONValue]>([])
    }

    private let server: HTTPServer
    private let recorder = Recorder()

    var url: String { "http://127.0.0.1:\(server.port)" }
    /// The bodies of every send received.
    var sends: [JSONValue] { recorder.bodies.withLock { $0 } }

    init(failTitles: Set<String>) throws {
        var router = Router()
        let recorder = recorder
        let ok = HTTPResponse.json(200, Array(#"{"ok":true}"#.utf8))
        router.post("/v1/push/register-token") { _ in ok }
        router.post("/v1/push/unregister-token") { _ in ok }
        router.post("/v1/push/send") { request in
            guard let body = try? JSONValue.parse(request.body) else { return HTTPResponse(status: 400) }
            recorder.bodies.withLock { $0.append(body) }
            if let title = body["title"]?.stringValue, failTitles.contains(title) {
                return HTTPResponse.json(500, Array(#"{"error":"internal"}"#.utf8))
            }
            let rows = (body["tokens"]?.arrayValue ?? []).map { JSONValue.object(JSONObject([("token", $0), ("ok", true)])) }
            return HTTPResponse.json(200, JSONValue.object(JSONObject([("results", .array(rows))])).serializedBytes())
        }
        server = try HTTPServer(router: router)
    }

    func stop() { server.stop() }
}
