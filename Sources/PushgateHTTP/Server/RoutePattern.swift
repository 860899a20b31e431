/// A parsed route pattern such as `/api/sessions/:id/view`: literal segments and `:name` parameters.
struct RoutePattern: Sendable {
    private enum Segment: Sendable {
        case literal(String)
        case parameter
    }

    /// The pattern as written.
    let text: String
    /// The names of the `:name` segments, in order.
    let parameterNames: [String]
    private let segments: [Segment]

    /// Parses `text`; a pattern is `/` or `/`-separated non-empty segments, `:name` for a parameter.
    init(_ text: String) {
        precondition(text.hasPrefix("/"), "route pattern \(text) must start with /")
        var segments: [Segment] = []
        var names: [String] = []
        if text != "/" {
            for piece in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
                precondition(!piece.isEmpty, "route pattern \(text) has an empty segment")
                if piece.hasPrefix(":") {
                    let name = String(piece.dropFirst())
                    precondition(!name.isEmpty && !names.contains(name), "route pattern \(text): bad or repeated parameter name")
                    names.append(name)
                    segments.append(.parameter)
                } else {
                    segments.append(.literal(String(piece)))
                }
            }
        }
        self.text = text
        self.segments = segments
        self.parameterNames = names
    }

    /// The parameter values when `path` matches, else `nil`. Empty segments never match.
    func match(_ path: String) -> [String]? {
        let bytes = path.utf8
        let slash = UInt8(ascii: "/")
        guard bytes.first == slash else { return nil }
        var start = bytes.index(after: bytes.startIndex)
        if segments.isEmpty { return start == bytes.endIndex ? [] : nil }
        var values: [String] = []
        for (position, segment) in segments.enumerated() {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            let piece = path[start..<end]
            switch segment {
            case .literal(let literal):
                guard piece.utf8.elementsEqual(literal.utf8) else { return nil }
            case .parameter:
                guard !piece.isEmpty else { return nil }
                values.append(String(piece))
            }
            let isLast = position == segments.count - 1
            guard isLast == (end == bytes.endIndex) else { return nil }
            if !isLast { start = bytes.index(after: end) }
        }
        return values
    }
}
