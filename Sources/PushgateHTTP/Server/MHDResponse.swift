internal import CMicroHTTPD
import PushgateCore

/// A libmicrohttpd response made from an ``HTTPResponse``, queued on its connection at once.
enum MHDResponse {
    /// Queues `response` with the `defaults` it does not override, plus `connection: close`
    /// when `closing`. Returns `false` (logged, the connection is to be closed) when
    /// libmicrohttpd refuses a header or the status.
    static func queue(_ response: HTTPResponse, defaults: HTTPHeaders, closing: Bool,
                      on connection: OpaquePointer, logger: Logger) -> Bool {
        let created = response.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse = created else {
            logger.error("could not allocate a response; closing the connection")
            return false
        }
        defer { MHD_destroy_response(mhdResponse) }
        func add(_ field: HTTPHeaders.Field) -> Bool {
            let added = field.name.withCString { name in
                field.value.withCString { value in MHD_add_response_header(mhdResponse, name, value) }
            }
            if added == .YES { return true }
            logger.error(
                "response header refused (control characters, or a header the server sets itself); closing the connection",
                ["header": field.name, "status": "\(response.status)"])
            return false
        }
        for field in defaults where !response.headers.contains(field.name) {
            guard add(field) else { return false }
        }
        for field in response.headers {
            guard add(field) else { return false }
        }
        if closing {
            guard add((name: "connection", value: "close")) else { return false }
        }
        guard MHD_queue_response(connection, UInt32(clamping: response.status), mhdResponse) == .YES else {
            logger.error("response refused; status must be 100...999", ["status": "\(response.status)"])
            return false
        }
        return true
    }
}
