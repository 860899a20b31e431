internal import CCurl

/// One libcurl easy handle: one request (a POST or a GET) at a time, driven by a ``CurlTransferLoop``.
///
/// The options every request shares are set once; ``start(url:headers:body:)`` sets the rest
/// and ``finish(_:)`` turns libcurl's outcome into a reply or an error.
final class CurlEasyHandle {
    /// The answer body as it arrives; the write callback reaches it through `Unmanaged`.
    private final class Sink {
        var bytes: [UInt8] = []
        let limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }
    }

    let handle: UnsafeMutableRawPointer
    private let maxReplyBytes: Int
    private var sink: Sink
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var url = ""

    /// libcurl's global state is set up once per process, before the first handle.
    static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    init(timeoutMs: Int, maxReplyBytes: Int, caFile: String?) throws(HTTPClientError) {
        _ = Self.globalInit
        guard let handle = curl_easy_init() else { throw HTTPClientError("curl_easy_init failed") }
        self.handle = handle
        self.maxReplyBytes = maxReplyBytes
        sink = Sink(limit: maxReplyBytes)
        let settings: [CURLcode] = [
            // Only http(s), no redirects: a relay answer is final.
            pushgate_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            pushgate_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            // No SIGALRM-based timeouts: this runs on a thread of a multi-threaded process.
            pushgate_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            pushgate_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs),
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
            caFile.map { pushgate_curl_setopt_string(handle, CURLOPT_CAINFO, $0) } ?? CURLE_OK,
        ]
        if let failed = settings.first(where: { $0 != CURLE_OK }) {
            curl_easy_cleanup(handle)
            throw HTTPClientError("libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))")
        }
    }

    deinit {
        curl_slist_free_all(headerList)
        curl_easy_cleanup(handle)
    }

    /// Sets up the next request, a POST of `body` (libcurl copies it) or, when nil, a GET; the
    /// handle is ready for `curl_multi_add_handle`. The method is set each time: a handle is
    /// reused for both.
    func start(url: String, headers: [String], body: [UInt8]?) -> CURLcode {
        self.url = url
        sink = Sink(limit: maxReplyBytes)
        curl_slist_free_all(headerList)
        headerList = nil
        for header in headers { headerList = curl_slist_append(headerList, header) }
        let method: [CURLcode] = body.map { body in body.withUnsafeBytes { bytes in [
            pushgate_curl_setopt_long(handle, CURLOPT_POST, 1),
            // The size first: COPYPOSTFIELDS copies that many bytes.
            pushgate_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count),
            pushgate_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)),
        ] } } ?? [pushgate_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)]
        let settings: [CURLcode] = method + [
            pushgate_curl_setopt_string(handle, CURLOPT_URL, url),
            pushgate_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeRawPointer(headerList)),
            pushgate_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()),
        ]
        return settings.first { $0 != CURLE_OK } ?? CURLE_OK
    }

    /// The answer of the transfer that ended with `code`, or why there is none.
    func finish(_ code: CURLcode) -> Result<HTTPClientReply, HTTPClientError> {
        guard code == CURLE_OK else {
            if sink.overflowed {
                return .failure(HTTPClientError("the answer from \(Self.origin(url)) is larger than \(maxReplyBytes) bytes"))
            }
            let reason = String(cString: curl_easy_strerror(code))
            return .failure(HTTPClientError("\(Self.origin(url)): \(reason)", timedOut: code == CURLE_OPERATION_TIMEDOUT))
        }
        var status = 0
        _ = pushgate_curl_response_code(handle, &status)
        return .success(HTTPClientReply(status: status, body: sink.bytes))
    }

    /// Scheme, host and port of `url`, for error messages (never the path or query).
    static func origin(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "the server" }
        let rest = url[schemeEnd.upperBound...]
        return String(url[..<schemeEnd.upperBound]) + String(rest.prefix { $0 != "/" && $0 != "?" })
    }
}
