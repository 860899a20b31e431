import CCurl

/// One libcurl easy handle: one request at a time, its connection kept alive between requests
/// (libcurl keeps a handle's connection cache across `perform` calls).
final class CurlEasyHandle {
    /// The answer body as it arrives; the write callback reaches it through `Unmanaged`.
    private final class Sink {
        var bytes: [UInt8] = []
        let limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }
    }

    private let handle: UnsafeMutableRawPointer

    /// libcurl's global state is set up once per process, before the first handle.
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    init() throws(HTTPClientError) {
        _ = Self.globalInit
        guard let handle = curl_easy_init() else { throw HTTPClientError("curl_easy_init failed") }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Performs one POST; blocks the calling thread until the answer or the deadline.
    func post(url: String, headers: [String], body: [UInt8], timeoutMs: Int, maxReplyBytes: Int,
              caFile: String?) throws(HTTPClientError) -> HTTPClientReply {
        curl_easy_reset(handle)
        let sink = Sink(limit: maxReplyBytes)
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        for header in headers { list = curl_slist_append(list, header) }
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let code: CURLcode = body.withUnsafeBytes { bytes in
            let settings: [CURLcode] = [
                pushgate_curl_setopt_string(handle, CURLOPT_URL, url),
                // Only http(s), no redirects: a relay answer is final.
                pushgate_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                pushgate_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                // No SIGALRM-based timeouts: this runs on a thread of a multi-threaded process.
                pushgate_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
                pushgate_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs),
                pushgate_curl_setopt_long(handle, CURLOPT_POST, 1),
                pushgate_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)),
                pushgate_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count),
                pushgate_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeRawPointer(list)),
                pushgate_curl_setopt_write_function(handle) { data, size, count, context in
                    let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                    let length = size * count
                    guard sink.bytes.count + length <= sink.limit else {
                        sink.overflowed = true
                        return 0
                    }
                    if let data { sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
                    return length
                },
                pushgate_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context),
                caFile.map { pushgate_curl_setopt_string(handle, CURLOPT_CAINFO, $0) } ?? CURLE_OK,
            ]
            if let failed = settings.first(where: { $0 != CURLE_OK }) { return failed }
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            if sink.overflowed { throw HTTPClientError("the answer from \(Self.origin(url)) is larger than \(maxReplyBytes) bytes") }
            let reason = String(cString: curl_easy_strerror(code))
            throw HTTPClientError("\(Self.origin(url)): \(reason)", timedOut: code == CURLE_OPERATION_TIMEDOUT)
        }
        var status = 0
        _ = pushgate_curl_response_code(handle, &status)
        return HTTPClientReply(status: status, body: sink.bytes)
    }

    /// Scheme, host and port of `url`, for error messages (never the path or query).
    private static func origin(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "the server" }
        let rest = url[schemeEnd.upperBound...]
        return String(url[..<schemeEnd.upperBound]) + String(rest.prefix { $0 != "/" && $0 != "?" })
    }
}
