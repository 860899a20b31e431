internal import COpenSSL
import Dispatch
import Synchronization
import Testing
@testable import PushgateCore

/// A key with its own precomputed table must accept and refuse exactly what OpenSSL's general
/// verification does; the budget bounds how many tables exist.
@Suite struct CryptoP256KeyTableTests {
    /// A key on the general path and the same key with its table built.
    static func pair(_ publicKey: P256PublicKey, budget: P256TableBudget) throws -> (plain: P256PublicKey, tabled: P256PublicKey) {
        let tabled = try P256PublicKey(x: publicKey.x, y: publicKey.y, tables: budget)
        #expect(tabled.prepareTable())
        #expect(tabled.hasTable)
        return (try P256PublicKey(x: publicKey.x, y: publicKey.y), tabled)
    }

    @Test func tableAndGeneralPathAgreeOnValidAndAlteredSignatures() throws {
        let budget = P256TableBudget(maxTables: 1, threshold: 1_000)
        for round in 0..<24 {
            let signer = P256PrivateKey()
            let (plain, tabled) = try Self.pair(signer.publicKey, budget: budget)
            let message = Array("round \(round) \(signer.publicKey.serverId)".utf8)
            let signature = try signer.sign(message)
            let twin = Self.sTwin(signature)
            var candidates: [(String, [UInt8], Bool)] = [
                ("valid", signature, true),
                ("other s form", twin, true),
                ("r and s swapped", Array(signature[32...] + signature[..<32]), false),
                ("r = 0", [UInt8](repeating: 0, count: 32) + signature[32...], false),
                ("s = 0", Array(signature[..<32]) + [UInt8](repeating: 0, count: 32), false),
                ("r = n", Self.order + signature[32...], false),
                ("s = n", Array(signature[..<32]) + Self.order, false),
                ("r + n does not fit, r = n + 1", Self.plusOne(Self.order) + signature[32...], false),
                ("all ones", [UInt8](repeating: 0xFF, count: 64), false),
                ("all zeros", [UInt8](repeating: 0, count: 64), false),
            ]
            for byte in [0, 17, 31, 32, 48, 63] {
                var flipped = signature
                flipped[byte] ^= 0x01
                candidates.append(("bit flipped in byte \(byte)", flipped, false))
            }
            for (name, candidate, expected) in candidates {
                #expect(plain.verify(signature: candidate, message: message) == expected, "\(name), general path")
                #expect(tabled.verify(signature: candidate, message: message) == expected, "\(name), table")
            }
            #expect(!tabled.verify(signature: signature, message: message + [0x20]))
            #expect(!tabled.verify(signature: Array(signature.prefix(63)), message: message))
        }
    }

    @Test func theOrderInverseAgreesWithOpenSSLAndRefusesOutOfRangeValues() throws {
        let context = try #require(BN_CTX_new())
        defer { BN_CTX_free(context) }
        let n = try #require(BN_bin2bn(Self.order, 32, nil))
        let value = try #require(BN_new())
        let expected = try #require(BN_new())
        defer { BN_free(n); BN_free(value); BN_free(expected) }
        let edges: [[UInt8]] = [
            [UInt8](repeating: 0, count: 31) + [1], [UInt8](repeating: 0, count: 31) + [2],
            Self.minus(Self.order, 1), Self.minus(Self.order, 2), [0x80] + [UInt8](repeating: 0, count: 31),
        ]
        var randoms: [[UInt8]] = []
        for _ in 0..<2_000 {
            #expect(BN_rand_range(value, n) == 1)
            var bytes = [UInt8](repeating: 0, count: 32)
            #expect(BN_bn2binpad(value, &bytes, 32) == 32)
            if bytes != [UInt8](repeating: 0, count: 32) { randoms.append(bytes) }
        }
        for s in edges + randoms {
            #expect(BN_bin2bn(s, 32, value) != nil)
            #expect(BN_mod_inverse(expected, value, n, context) != nil)
            var theirs = [UInt8](repeating: 0, count: 32)
            #expect(BN_bn2binpad(expected, &theirs, 32) == 32)
            #expect(Self.orderInverse(s) == theirs)
        }
        for outside in [[UInt8](repeating: 0, count: 32), Self.order, Self.plusOne(Self.order), [UInt8](repeating: 0xFF, count: 32)] {
            #expect(Self.orderInverse(outside) == nil)
        }
    }

    @Test func oneTableVerifiesOnManyThreadsAtOnce() throws {
        let signer = P256PrivateKey()
        let (_, tabled) = try Self.pair(signer.publicKey, budget: P256TableBudget(maxTables: 1, threshold: 1_000))
        let messages = (0..<8).map { Array("thread \($0)".utf8) }
        let signatures = try messages.map { try signer.sign($0) }
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<40 {
                let other = (thread + round) % 8
                let accepted = tabled.verify(signature: signatures[other], message: messages[other])
                let forged = tabled.verify(signature: signatures[other], message: messages[(other + 1) % 8])
                if !accepted || forged { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func aKeyGetsItsTableAfterTheThresholdOnTheBudgetsQueue() throws {
        let queue = DispatchQueue(label: "tables")
        let budget = P256TableBudget(maxTables: 1, threshold: 3, queue: queue)
        let signer = P256PrivateKey()
        let key = try P256PublicKey(x: signer.publicKey.x, y: signer.publicKey.y, tables: budget)
        let message = Array("threshold".utf8)
        let signature = try signer.sign(message)
        queue.suspend()
        for _ in 0..<3 { #expect(key.verify(signature: signature, message: message)) }
        #expect(!key.hasTable)
        queue.resume()
        queue.sync {}
        #expect(key.hasTable)
        #expect(budget.tablesInUse == 1)
        #expect(key.verify(signature: signature, message: message))
    }

    @Test func theBudgetBoundsTablesAndAFreedKeyGivesItsPlaceBack() throws {
        let budget = P256TableBudget(maxTables: 1, threshold: 1_000)
        let firstSigner = P256PrivateKey()
        var first: P256PublicKey? = try P256PublicKey(x: firstSigner.publicKey.x, y: firstSigner.publicKey.y, tables: budget)
        let secondSigner = P256PrivateKey()
        let second = try P256PublicKey(x: secondSigner.publicKey.x, y: secondSigner.publicKey.y, tables: budget)
        #expect(first?.prepareTable() == true)
        #expect(first?.prepareTable() == true, "a key with a table keeps it")
        #expect(budget.tablesInUse == 1)
        #expect(!second.prepareTable())
        #expect(!second.hasTable)
        first = nil
        #expect(budget.tablesInUse == 0)
        #expect(second.prepareTable())
        let message = Array("after".utf8)
        #expect(second.verify(signature: try secondSigner.sign(message), message: message))
    }

    @Test func keysWithoutABudgetNeverGetATable() throws {
        let signer = P256PrivateKey()
        let key = try P256PublicKey(x: signer.publicKey.x, y: signer.publicKey.y)
        #expect(!key.prepareTable())
        #expect(!signer.publicKey.prepareTable())
        #expect(!key.hasTable)
        #expect(P256TableBudget.none.tablesInUse == 0)
    }

    /// The P-256 group order n, big-endian.
    static let order = P256Curve.order

    /// `r ‖ (n − s)`: the other valid form of a signature.
    static func sTwin(_ signature: [UInt8]) -> [UInt8] {
        let low = P1363Signature.lowS(signature)
        if low != signature { return low }
        var out = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            let difference = Int(order[index]) - Int(signature[32 + index]) - borrow
            out[index] = UInt8(truncatingIfNeeded: difference)
            borrow = difference < 0 ? 1 : 0
        }
        return Array(signature[..<32]) + out
    }

    /// The shim's s⁻¹ mod n of 32 big-endian bytes, or `nil` when it refuses `s`.
    static func orderInverse(_ s: [UInt8]) -> [UInt8]? {
        var limbs = [UInt64](repeating: 0, count: 4)
        var inverse = [UInt64](repeating: 0, count: 4)
        pg_u256_from_bytes(&limbs, s)
        guard pg_p256_order_inverse(&inverse, limbs) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        pg_u256_to_bytes(&out, inverse)
        return out
    }

    /// A 32-byte big-endian number minus a small `amount` (no borrow past the last byte here).
    static func minus(_ number: [UInt8], _ amount: UInt8) -> [UInt8] {
        var out = number
        out[31] -= amount
        return out
    }

    /// A 32-byte big-endian number plus one (n + 1 still fits in 32 bytes).
    static func plusOne(_ number: [UInt8]) -> [UInt8] {
        var out = number
        for index in stride(from: 31, through: 0, by: -1) {
            out[index] &+= 1
            if out[index] != 0 { break }
        }
        return out
    }
}
