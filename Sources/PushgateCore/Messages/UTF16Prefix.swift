extension String {
    /// The longest prefix of at most `maxCount` UTF-16 code units, JavaScript's
    /// `slice(0, maxCount)`, except that a surrogate pair cut in half is dropped whole:
    /// a Swift string cannot hold the lone surrogate JavaScript would leave.
    public func prefix(utf16Count maxCount: Int) -> String {
        guard utf16.count > maxCount else { return self }
        var units = 0
        var end = unicodeScalars.startIndex
        while end != unicodeScalars.endIndex {
            let width = unicodeScalars[end].utf16.count
            guard units + width <= maxCount else { break }
            units += width
            end = unicodeScalars.index(after: end)
        }
        return String(unicodeScalars[..<end])
    }
}
