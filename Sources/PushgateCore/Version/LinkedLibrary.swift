internal import COpenSSL
internal import CSodium

/// A C library the process is linked with and the version it reports at run time, which is
/// the one loaded, not the one its headers had at build time.
public struct LinkedLibrary: Sendable, Equatable {
    public let name: String
    public let version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    /// The libraries of `PushgateCore`: OpenSSL and libsodium.
    public static var core: [LinkedLibrary] {
        [LinkedLibrary(name: "OpenSSL", version: String(cString: OpenSSL_version(Int32(OPENSSL_VERSION_STRING)))),
         LinkedLibrary(name: "libsodium", version: String(cString: sodium_version_string()))]
    }
}
