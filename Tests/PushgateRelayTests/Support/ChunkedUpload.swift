import Foundation
import PushgateTesting

/// Chunked uploads and one-shot raw exchanges over a ``RawHTTPConnection``.
enum ChunkedUpload {
    /// Sends `chunks` with `Transfer-Encoding: chunked` and returns the response head and body.
    static func post(port: UInt16, path: String, chunks: [[UInt8]]) throws -> String {
        var request = Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8)
        for chunk in chunks {
            request += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        request += Array("0\r\n\r\n".utf8)
        return try exchange(port: port, request: request)
    }

    /// Writes `request` (ignoring a peer that stops reading) and reads until the peer closes.
    static func exchange(port: UInt16, request: [UInt8]) throws -> String {
        let client = try RawHTTPConnection(port: port)
        client.sendUnlessClosed(request)
        return String(decoding: client.readToEnd(), as: UTF8.self)
    }
}
