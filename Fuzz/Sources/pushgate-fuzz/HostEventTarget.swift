import PushgateCore
import PushgateHost
@testable import PushgateRelay

/// The host's event decoder (`POST /api/events`), then what the host makes of an accepted
/// event without I/O: its tag, its hapi payload and the plaintext chosen for it, and its alert
/// batches for an iOS and an Android token, signed as the host sends them. The relay must accept
/// every such send: an event the host takes but the relay refuses is a notification lost.
enum HostEventTarget {
    static let titles = try! NotificationTitles.bundled()
    static let composer = AlertComposer(titles: titles)
    /// `hostA` of Fixtures/vectors/p256-identities.json.
    static let signer = RelayRequestSigner(key: try! P256PrivateKey(jwk: [
        "kty": "EC", "crv": "P-256", "x": "vXxzuIsum0ztpiAistqL4TGTpbVu3Cbn33hC4kzQtes",
        "y": "BgWtp72oOsaiuA1-MUBA-kf_Frg7rIXO2wFEUbt85xo", "d": "Hy49TFtqeYgfLj1MW2p5iB8uPUxbanmIHy49TFtqeYg",
    ]))
    static let tokens = [
        AlertToken(token: String(repeating: "ab", count: 32), platform: .ios, locale: "de", environment: "sandbox"),
        AlertToken(token: "fcm-token:" + String(repeating: "x", count: 40), platform: .android, locale: nil, environment: "production"),
    ]

    static let target = FuzzTarget("host-event") { input in
        guard let json = try? JSONValue.parse(Array(input)), let event = try? HostEvent(json: json) else { return }
        let tag = NotificationTag.make(for: event)
        precondition(!tag.isEmpty && tag.utf8.count <= NotificationTag.maxBytes, "a tag is empty or over 64 bytes")
        if let payload = HapiComposer.payload(for: event), let plaintext = HapiPlaintext.choose(for: payload) {
            precondition(HapiEnvelope.fits(plaintextByteCount: plaintext.bytes.count), "the chosen plaintext does not fit an envelope")
            precondition((try? HapiPayload(plaintext: plaintext.bytes)) != nil, "a device cannot read the chosen plaintext")
        }
        // Child-session and system events are never pushed; a `resolved` one is, under the prompt's tag.
        guard event.parentSessionId == nil, !event.system else { return }
        for batch in composer.batches(for: event, tokens: tokens, badge: 1, tag: tag) {
            guard let body = try? signer.send(tokens: batch.tokens, title: batch.title, body: batch.body, badge: Int64(batch.badge),
                                              collapseId: batch.tag, environment: batch.environment, data: batch.data,
                                              attention: batch.attention, ts: RelayRequestTargets.nowMs)
            else { preconditionFailure("the host cannot sign a send") }
            let request: SendRequest
            do {
                request = try SendRequest(.relayBody(body), keys: PublicKeyCache())
            } catch {
                preconditionFailure("the relay refuses the host's send of an accepted event: \(error)")
            }
            precondition(!request.signsAnotherRoutesMessage, "the host's send signs another route's message")
            precondition(APNsPayload.alert(title: request.title, body: request.body, badge: request.badge, threadId: request.collapseId,
                                           data: request.data, attention: request.attention) != nil,
                         "the relay cannot build the APNs payload of the host's send")
        }
    }
}
