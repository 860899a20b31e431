internal import CCurl
internal import CMicroHTTPD
internal import CNGHTTP2
import PushgateCore

extension LinkedLibrary {
    /// The libraries of `PushgateHTTP`: nghttp2, libmicrohttpd and libcurl.
    public static var http: [LinkedLibrary] {
        [LinkedLibrary(name: "nghttp2", version: nghttp2_version(0).map { String(cString: $0.pointee.version_str) } ?? "unknown"),
         LinkedLibrary(name: "libmicrohttpd", version: MHD_get_version().map { String(cString: $0) } ?? "unknown"),
         LinkedLibrary(name: "libcurl", version: pushgate_curl_version().map { String(cString: $0) } ?? "unknown")]
    }
}
