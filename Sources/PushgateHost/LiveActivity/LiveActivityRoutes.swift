import PushgateCore
import PushgateHTTP

extension HostAPI {
    /// `POST`/`DELETE /api/push/live-activity-token` (an activity's token, or with `kind:"start"`
    /// a push-to-start token) and `PUT /api/sessions/:id/state`.
    ///
    /// - Important: protocol/host-api.md §2 and §6 — only the client that registered a token may replace or
    ///   delete it (403 `{"error":"forbidden"}`); deleting an unknown token answers 200.
    static func addLiveActivityRoutes(to router: inout Router, _ engine: LiveActivityEngine, clock: any WallClock, logger: Logger) {
        let forbidden = APIResponse.json(403, .object(JSONObject([("error", "forbidden")])))
        router.post("/api/push/live-activity-token") { request in
            await handle(request, logger) { json in
                if LiveActivityStartRegistration.isStart(json) {
                    return switch try await engine.registerStart(try LiveActivityStartRegistration(json: json)) {
                    case .stored: APIResponse.ok
                    case .forbidden: forbidden
                    }
                }
                return switch try await engine.register(try LiveActivityRegistration(json: json)) {
                case .stored: APIResponse.ok
                case .forbidden: forbidden
                }
            }
        }
        router.delete("/api/push/live-activity-token") { request in
            await handle(request, logger) { json in
                switch try await engine.remove(try LiveActivityRemoval(json: json)) {
                case .removed, .notFound: APIResponse.ok
                case .forbidden: forbidden
                }
            }
        }
        router.put("/api/sessions/:id/state") { request in
            await handle(request, logger) { json in
                let update = try SessionStateUpdate(sessionId: request.parameters["id"] ?? "", json: json, nowMs: clock.nowMilliseconds)
                let delivery = try await engine.updateSession(update)
                return APIResponse.json(200, .object(JSONObject([("ok", true)] + delivery.json.members.map { ($0.key, $0.value) })))
            }
        }
    }
}
