/// Lends `strings` to C as an array of NUL-terminated strings followed by a NULL entry; `nil`
/// entries are NULL. The strings share one buffer that lives for the call.
func withCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R) rethrows -> R {
    var storage: [CChar] = []
    let offsets = strings.map { string -> Int? in
        guard let string else { return nil }
        defer { storage.append(contentsOf: string.utf8CString) }
        return storage.count
    }
    return try storage.withUnsafeBufferPointer { buffer in
        // An empty buffer has no base address; then every entry is NULL anyway.
        let pointers: [UnsafePointer<CChar>?] = offsets.map { offset -> UnsafePointer<CChar>? in
            guard let offset, let base = buffer.baseAddress else { return nil }
            return base + offset
        } + [nil]
        return try pointers.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
