import Dispatch
import Synchronization

/// A host's ECDSA P-256 public key: strict JWK parsing, `serverId`, and signature verification.
///
/// Safe to share between threads: the OpenSSL key and its verification context are built once
/// and never changed, and every `verify` call works on its own copy of that context, so one
/// cached instance can verify concurrently. A key that verifies often may get its own
/// precomputed table (``P256TableBudget``), set once and only read after.
///
/// - Important: protocol/signed-relay.md §1 — the JWK has exactly `kty`, `crv`, `x`, `y`; `serverId`
///   hashes `{"crv":"P-256","kty":"EC","x":…,"y":…}` in that order.
public final class P256PublicKey: Sendable {
    /// The x coordinate, canonical unpadded base64url of 32 bytes.
    public let x: String
    /// The y coordinate, canonical unpadded base64url of 32 bytes.
    public let y: String
    /// Unpadded base64url SHA-256 of the canonical JWK (43 chars): the host's identity.
    public let serverId: String
    private let verifier: ECDSAContextTemplate
    private let point: (x: [UInt8], y: [UInt8])
    private let budget: P256TableBudget
    private let verifications = Atomic<Int>(0)
    private let table = AtomicLazyReference<P256KeyTable>()

    private static let operation = "P-256 public key"

    /// Parses a wire `publicKeyJwk`: exactly the members `kty` = "EC", `crv` = "P-256", `x`, `y`
    /// (any order), all strings; anything else (`d`, `ext`, `alg`, …) is rejected. `tables`
    /// decides whether the key may get a precomputed table once it verifies often.
    public convenience init(jwk: JSONObject, tables: P256TableBudget = .none) throws {
        guard jwk.count == 4, case .string("EC")? = jwk["kty"], case .string("P-256")? = jwk["crv"],
              case .string(let x)? = jwk["x"], case .string(let y)? = jwk["y"] else {
            throw CryptoError(operation: Self.operation, message: "JWK must have exactly kty \"EC\", crv \"P-256\", x and y")
        }
        try self.init(x: x, y: y, tables: tables)
    }

    /// A key from its coordinates as canonical unpadded base64url of exactly 32 bytes each;
    /// the point must lie on P-256.
    public init(x: String, y: String, tables: P256TableBudget = .none) throws {
        let xBytes = try Self.coordinate(x, name: "x")
        let yBytes = try Self.coordinate(y, name: "y")
        let key = try P256Curve.publicKey(x: xBytes, y: yBytes, operation: Self.operation)
        verifier = try ECDSAContextTemplate(key: key, purpose: .verify, operation: Self.operation)
        point = (xBytes, yBytes)
        budget = tables
        self.x = x
        self.y = y
        serverId = Base64URL.encode(SHA256.hash(Array(Self.canonicalJWK(x: x, y: y).utf8)))
    }

    /// A key known to be valid, as derived from a private key.
    init(validKey key: EVPKey, x: [UInt8], y: [UInt8]) throws {
        verifier = try ECDSAContextTemplate(key: key, purpose: .verify, operation: Self.operation)
        point = (x, y)
        budget = .none
        self.x = Base64URL.encode(x)
        self.y = Base64URL.encode(y)
        serverId = Base64URL.encode(SHA256.hash(Array(Self.canonicalJWK(x: self.x, y: self.y).utf8)))
    }

    /// The public JWK, members `kty`, `crv`, `x`, `y` in that order.
    public var jwk: JSONObject {
        JSONObject([("kty", .string("EC")), ("crv", .string("P-256")), ("x", .string(x)), ("y", .string(y))])
    }

    /// The JWK members in lexicographic order, as hashed for `serverId`.
    static func canonicalJWK(x: String, y: String) -> String {
        JSONObject([("crv", .string("P-256")), ("kty", .string("EC")), ("x", .string(x)), ("y", .string(y))]).serialized()
    }

    /// `true` when `signature` (64-byte P1363 `r ‖ s`, low-S or high-S) is valid for `message`
    /// under ECDSA with SHA-256. Wrong sizes and malformed values are simply `false`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 2 * P256Curve.fieldSize else { return false }
        let digest = SHA256.hash(message)
        if let table = table.load() { return table.verify(signature: signature, digest: digest) }
        if budget.maxTables > 0, verifications.add(1, ordering: .relaxed).newValue == budget.threshold {
            budget.queue.async { self.prepareTable() }
        }
        guard let der = ECDSASignatureDER.encode(p1363: signature) else { return false }
        return verifier.verify(der: der, digest: digest)
    }

    /// Whether later verifications use this key's precomputed table.
    public var hasTable: Bool { table.load() != nil }

    /// Builds this key's precomputed table now unless it has one; `false` when its budget has
    /// no place left (or the table could not be built). ``verify(signature:message:)`` calls it
    /// on its budget's queue once the key reaches the budget's threshold.
    @discardableResult
    public func prepareTable() -> Bool {
        if hasTable { return true }
        guard let built = P256KeyTable(x: point.x, y: point.y, budget: budget) else { return false }
        // Two racing builders: the loser's table is freed here and gives its place back.
        _ = table.storeIfNil(built)
        return true
    }

    /// Whether `text` is a coordinate's encoding, canonical unpadded base64url of 32 bytes,
    /// whatever point it makes with the other.
    public static func isCoordinateEncoding(_ text: String) -> Bool { (try? coordinate(text, name: "")) != nil }

    private static func coordinate(_ text: String, name: String) throws -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try Base64URL.decode(text)
        } catch {
            throw CryptoError(operation: operation, message: "\(name) is not canonical unpadded base64url")
        }
        guard bytes.count == P256Curve.fieldSize else {
            throw CryptoError(operation: operation, message: "\(name) must be \(P256Curve.fieldSize) bytes, got \(bytes.count)")
        }
        return bytes
    }
}
