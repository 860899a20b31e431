internal import CMicroHTTPD

/// A request's header fields and query items, read out of libmicrohttpd.
enum MHDRequestFields {
    /// The request header fields, in order.
    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, headerIterator, pointer)
        }
        return headers
    }

    /// The query items, percent-decoded by libmicrohttpd, in order.
    static func query(of connection: OpaquePointer) -> [HTTPRequest.QueryItem] {
        var items: [HTTPRequest.QueryItem] = []
        withUnsafeMutablePointer(to: &items) { pointer in
            _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, queryIterator, pointer)
        }
        return items
    }

    private static func text(_ bytes: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let bytes else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private static let headerIterator: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        let headers = context!.assumingMemoryBound(to: HTTPHeaders.self)
        headers.pointee.add(MHDRequestFields.text(key, keySize), MHDRequestFields.text(value, valueSize))
        return .YES
    }

    private static let queryIterator: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        let items = context!.assumingMemoryBound(to: [HTTPRequest.QueryItem].self)
        items.pointee.append(HTTPRequest.QueryItem(name: MHDRequestFields.text(key, keySize), value: MHDRequestFields.text(value, valueSize)))
        return .YES
    }
}
