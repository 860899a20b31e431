import PushgateCore

extension AlertAttention {
    /// The unsigned attention fields of a `send` (**extension**, docs/relay.md "Attention"):
    /// `interruptionLevel` passive, active or time-sensitive (never `critical`), `relevanceScore`
    /// a number from 0 to 1, `category` an identifier; any other value or type → `invalid_request`.
    init(sendFields fields: FieldReader) throws(RelayError) {
        var level: Level?
        if let raw = try fields.relay({ try $0.optionalString("interruptionLevel") }) {
            guard let known = Level(rawValue: raw) else { throw .invalidRequest }
            level = known
        }
        let relevance = try fields.relay({ try $0.optionalNumber("relevanceScore") })
        if let relevance, !Self.isValidRelevance(relevance) { throw .invalidRequest }
        let category = try fields.relay({ try $0.optionalString("category") })
        if let category, !Self.isValidCategory(category) { throw .invalidRequest }
        self.init(level: level, relevance: relevance, category: category)
    }
}
