/// Formats numbers exactly as JavaScript's `String(number)` does.
///
/// - Important: signed messages and canonical JSON write numbers this way
///   (protocol/signed-relay.md §1, protocol/hapi-push.md §2 rule 6); `Double.description` is not this format.
public enum JSNumber {
    /// The JavaScript text of `value`: shortest round-trip digits, exponent form only at
    /// ≥ 1e21 or < 1e-6, `-0` as `0`. Non-finite values give `NaN`, `Infinity`, `-Infinity`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return "0" }
        // Integers below 2^53 print as plain decimal digits; skip the digit extraction.
        if value.rounded(.towardZero) == value, abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        let (digits, pointPosition) = shortestDigits(abs(value))
        let text = layout(digits: digits, pointPosition: pointPosition)
        return value < 0 ? "-" + text : text
    }

    /// The shortest round-trip decimal digits of a positive finite `value` (no leading or
    /// trailing zeros) and `n` such that `value = 0.digits × 10^n` (ECMA-262 Number::toString).
    private static func shortestDigits(_ value: Double) -> (digits: [UInt8], pointPosition: Int) {
        // Swift's description already holds the shortest round-trip digits (closest to the
        // value on a tie, as ECMA-262 asks); only its layout differs from JavaScript's.
        let text = Array(value.description.utf8)
        var digits: [UInt8] = []
        digits.reserveCapacity(17)
        var integerDigits = 0
        var seenPoint = false
        var exponent = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                exponent = Int(String(decoding: text[(index + 1)...], as: UTF8.self)) ?? 0
                break
            } else {
                digits.append(byte)
                if !seenPoint { integerDigits += 1 }
            }
            index += 1
        }
        var pointPosition = integerDigits + exponent
        let leadingZeros = digits.prefix(while: { $0 == UInt8(ascii: "0") }).count
        digits.removeFirst(leadingZeros)
        pointPosition -= leadingZeros
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        return (digits, pointPosition)
    }

    /// ECMA-262 Number::toString steps 6–10 for digits `s` (length k) and point position `n`.
    private static func layout(digits: [UInt8], pointPosition n: Int) -> String {
        let k = digits.count
        let zero = UInt8(ascii: "0")
        var out: [UInt8] = []
        out.reserveCapacity(k + 8)
        if k <= n && n <= 21 {
            out += digits
            out += repeatElement(zero, count: n - k)
        } else if 0 < n && n <= 21 {
            out += digits[..<n]
            out.append(UInt8(ascii: "."))
            out += digits[n...]
        } else if -6 < n && n <= 0 {
            out += [zero, UInt8(ascii: ".")]
            out += repeatElement(zero, count: -n)
            out += digits
        } else {
            out.append(digits[0])
            if k > 1 {
                out.append(UInt8(ascii: "."))
                out += digits[1...]
            }
            out.append(UInt8(ascii: "e"))
            out.append(n - 1 >= 0 ? UInt8(ascii: "+") : UInt8(ascii: "-"))
            out += String(abs(n - 1)).utf8
        }
        return String(decoding: out, as: UTF8.self)
    }
}
