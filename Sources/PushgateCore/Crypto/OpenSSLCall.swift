internal import COpenSSL

/// Small helpers that turn OpenSSL return conventions into Swift errors at once and free
/// short-lived OpenSSL objects when the closure that borrows them returns.
enum OpenSSLCall {
    /// Throws the queued OpenSSL error unless `result` is 1 (OpenSSL's success value).
    static func check(_ result: Int32, _ operation: String) throws {
        guard result == 1 else { throw CryptoError.openSSL(operation) }
    }

    /// Creates an object with `make`, lends it to `body`, then releases it with `free`.
    static func withObject<Object, Result>(
        _ operation: String,
        make: () -> Object?,
        free: (Object) -> Void,
        _ body: (Object) throws -> Result
    ) throws -> Result {
        guard let object = make() else { throw CryptoError.openSSL(operation) }
        defer { free(object) }
        return try body(object)
    }

    /// Lends C copies of `strings` that stay valid for all of `body`, for OpenSSL calls that
    /// keep a name pointer past the call itself (a pointer from passing a `String` directly
    /// lives only for that one call).
    static func withCStrings<Result>(_ strings: [String], _ body: ([UnsafePointer<CChar>]) throws -> Result) rethrows -> Result {
        func nest(_ index: Int, _ collected: [UnsafePointer<CChar>]) throws -> Result {
            guard index < strings.count else { return try body(collected) }
            return try strings[index].withCString { try nest(index + 1, collected + [$0]) }
        }
        return try nest(0, [])
    }

    /// Forgets whatever a failed check left on this thread's OpenSSL error queue, so a later
    /// error report is not about an earlier, expected failure (e.g. a bad signature).
    static func discardErrors() {
        ERR_clear_error()
    }
}
