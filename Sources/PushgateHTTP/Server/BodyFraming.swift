/// How a request says its body is delimited, read from its header fields in one pass.
struct BodyFraming {
    /// The `Content-Length` value (`Int.max` when too large for `Int`), or `nil` without one.
    private(set) var declaredLength: Int?
    private var lengthFields = 0
    private var encodingFields = 0
    private var chunked = false
    private var whitespaceInName = false

    init(_ headers: HTTPHeaders) {
        for field in headers {
            // `Name : value` is a different field to libmicrohttpd than to most proxies.
            if field.name.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) { whitespaceInName = true }
            if HTTPHeaders.equalIgnoringASCIICase(field.name, "content-length") {
                lengthFields += 1
                // libmicrohttpd has already refused malformed values.
                declaredLength = Int(field.value) ?? .max
            } else if HTTPHeaders.equalIgnoringASCIICase(field.name, "transfer-encoding") {
                encodingFields += 1
                chunked = HTTPHeaders.equalIgnoringASCIICase(field.value, "chunked")
            }
        }
    }

    /// Whether body bytes follow the headers.
    var hasBody: Bool { (declaredLength ?? 0) > 0 || encodingFields > 0 }

    /// Framing libmicrohttpd 0.9.75 accepts but reads in a way another hop might not (request
    /// smuggling): several Content-Length fields, Content-Length with Transfer-Encoding, a
    /// Transfer-Encoding other than one `chunked` (which it would wait on until the deadline), or
    /// a field name with white space in it (RFC 9112 §5.1 requires 400).
    var isAmbiguous: Bool {
        whitespaceInName || lengthFields > 1 || encodingFields > 1 || (lengthFields == 1 && encodingFields == 1)
            || (encodingFields == 1 && !chunked)
    }
}
