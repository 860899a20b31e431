import PushgateCore
import PushgateHTTP
import Synchronization

/// A loopback stand-in for a hapi relay's `POST /v1/push` that answers odd things on purpose:
/// per token a scripted status and body (default 200 `{"ok":true}`), or no answer at all until
/// ``stop()``. It records every request's path, headers and body.
final class HapiScriptedRelay: Sendable {
    /// What the relay answers for one token.
    enum Answer: Sendable {
        case reply(status: Int, body: String, contentType: String)
        /// Never answer (until the relay stops): the client must time out.
        case hang

        static func json(_ status: Int, _ body: String) -> Answer { .reply(status: status, body: body, contentType: "application/json") }
        static func html(_ status: Int) -> Answer { .reply(status: status, body: "<html><body>Bad gateway</body></html>", contentType: "text/html") }
    }

    /// One request as received.
    struct Request: Sendable {
        var path: String
        var headers: [(name: String, value: String)]
        var body: JSONValue?
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
    }

    private struct State {
        var scripts: [String: Answer] = [:]
        var requests: [Request] = []
        var held: [CheckedContinuation<Void, Never>] = []
        var stopped = false
    }

    private final class Box: Sendable {
        let state = Mutex(State())
    }

    private let server: HTTPServer
    private let box = Box()

    var url: String { "http://127.0.0.1:\(server.port)" }
    var requests: [Request] { box.state.withLock { $0.requests } }

    init() throws {
        let box = box
        var router = Router()
        router.post("/v1/push") { request in
            let body = try? JSONValue.parse(request.body)
            let token = body?["token"]?.stringValue ?? ""
            let answer = box.state.withLock { state -> Answer in
                state.requests.append(Request(path: request.path, headers: request.headers.map { ($0.name, $0.value) }, body: body))
                return state.scripts[token] ?? .json(200, #"{"ok":true}"#)
            }
            switch answer {
            case .reply(let status, let text, let contentType):
                return HTTPResponse(status: status, headers: ["content-type": contentType], body: Array(text.utf8))
            case .hang:
                await withCheckedContinuation { continuation in
                    let resumeNow = box.state.withLock { state -> Bool in
                        if state.stopped { return true }
                        state.held.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
                return HTTPResponse(status: 503)
            }
        }
        server = try HTTPServer(router: router)
    }

    func script(_ token: String, _ answer: Answer) { box.state.withLock { $0.scripts[token] = answer } }

    /// Releases held requests and stops serving.
    func stop() {
        let held = box.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.stopped = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
        server.stop()
    }
}
