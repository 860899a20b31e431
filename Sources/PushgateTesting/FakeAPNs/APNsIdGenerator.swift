/// Makes `apns-id` values for requests that did not send one: UUID-shaped, unique per server,
/// and cheap (a random prefix and a counter, not a random UUID per request).
struct APNsIdGenerator {
    private let prefix: String
    private var counter: UInt64 = 0

    init() {
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        prefix = String(repeating: "0", count: 8 - random.count) + random
    }

    mutating func next() -> String {
        counter += 1
        let digits = String(counter & 0xFFFF_FFFF_FFFF, radix: 16)
        return prefix + "-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }
}
