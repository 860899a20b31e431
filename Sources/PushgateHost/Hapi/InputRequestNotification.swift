import PushgateCore

/// The `input-request` payload: the agent asks the user a question.
///
/// - Important: protocol/hapi-push.md §9 (input-request variant) — for the question tools only (one
///   leading `functions.` removed); title `<agent> needs your input`, severity `info`, the
///   request id for correlation only; body within 280 scalars including the session line.
enum InputRequestNotification {
    /// The tools whose requests are questions, without the optional `functions.` prefix.
    static let questionTools = ["request_user_input", "AskUserQuestion", "ask_user_question", "CursorAskQuestion"]
    /// The body's budget in Unicode scalars.
    static let budget = 280
    static let noQuestion = "Open the session to view and answer the question."

    static func isQuestionTool(_ tool: String?) -> Bool {
        guard var name = tool else { return false }
        if name.hasPrefix("functions.") { name.removeFirst("functions.".count) }
        return questionTools.contains(name)
    }

    static func payload(session: HapiSession, request: PendingRequest) -> HapiPayload {
        let sessionName = HapiText.clipQ(HapiText.oneLine(session.name), 80)
        let context = sessionName.isEmpty ? "" : "\n" + sessionName
        let budget = Self.budget - HapiText.scalars(context)
        let questions = (request.arguments?["questions"]?.arrayValue ?? []).compactMap { element -> String? in
            guard let object = element.objectValue else { return nil }
            let question = HapiText.oneLine(object["question"]?.stringValue ?? "")
            let line = question.isEmpty ? HapiText.oneLine(object["header"]?.stringValue ?? "") : question
            return line.isEmpty ? nil : line
        }
        let remaining = questions.count - 1
        let suffix = remaining > 0 ? "\n+\(remaining) more question" + (remaining == 1 ? "" : "s") : ""
        let first = HapiText.clipQ(questions.first ?? noQuestion, max(0, budget - HapiText.scalars(suffix)))
        return HapiPayload(type: .inputRequest, sessionId: session.id, sessionName: sessionName, url: session.url,
                           requestId: request.id, title: "\(session.agent) needs your input",
                           body: HapiText.clipQ(first + suffix, budget) + context, severity: .info)
    }
}
