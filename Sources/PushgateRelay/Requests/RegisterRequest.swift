import PushgateCore
import PushgateStore

/// A register or unregister request, for alert, Live Activity or push-to-start tokens.
///
/// - Important: docs/relay.md "Register and unregister" — `platform` is checked first (`android`
///   on a Live Activity route → 400 `unsupported_platform`; a register on a relay without an
///   Android account → 501), then `kind` on the Live Activity routes (`liveactivity`, or `start`
///   for a push-to-start token, an extension), then the token by its platform.
struct RegisterRequest {
    let token: String
    let platform: String
    /// The binding the request makes or removes.
    let kind: BindingKind
    let proof: SignedProof

    /// `servesAndroid`: the relay has the signed routes' Android account, or the request is an
    /// unregister (else `android` is 501).
    init(_ fields: FieldReader, liveActivity: Bool, servesAndroid: Bool, keys: PublicKeyCache) throws(RelayError) {
        // A missing platform means iOS; it is signed either way.
        let platform = try fields.relay({ try $0.optionalString("platform") }) ?? "ios"
        switch platform {
        case "ios": break
        case "android" where liveActivity: throw .unsupportedPlatform
        case "android": guard servesAndroid else { throw .androidNotConfigured }
        default: throw .invalidRequest
        }
        if liveActivity {
            switch try fields.relay({ try $0.optionalString("kind") }) {
            case "liveactivity": kind = .liveActivity
            case "start": kind = .liveActivityStart
            default: throw .invalidRequest
            }
        } else {
            kind = platform == "android" ? .android : .alert
        }
        token = try fields.relay({ try $0.string("token") })
        guard platform == "android" ? DeviceToken.isValidFCM(token) : DeviceToken.isValid(token) else { throw .invalidRequest }
        self.platform = platform
        proof = try SignedProof(fields, keys: keys)
    }

    /// The endings of every register-family signed message (`ts.token.` + suffix). A send whose
    /// signed message ends with `.` and one would sign the same bytes as a register, so such
    /// sends are refused (``SendRequest/signsAnotherRoutesMessage``, docs/security.md, M3).
    /// Read off the builders themselves, so a new register message cannot be left out.
    static let signedSuffixes: [String] = {
        let prefix = "0.t."
        let messages = ["ios", "android"].flatMap { platform in
            [SignedMessage.registerToken(ts: 0, token: "t", platform: platform),
             SignedMessage.unregisterToken(ts: 0, token: "t", platform: platform)]
        } + [SignedMessage.liveActivityToken(ts: 0, token: "t"), SignedMessage.liveActivityStartToken(ts: 0, token: "t")]
        return messages.map { String($0.dropFirst(prefix.count)) }
    }()

    /// The string the host signed for `route`.
    func signedMessage(route: RelayRoute) -> String {
        switch (route, kind) {
        case (.registerToken, _): SignedMessage.registerToken(ts: proof.timestampMs, token: token, platform: platform)
        case (.unregisterToken, _): SignedMessage.unregisterToken(ts: proof.timestampMs, token: token, platform: platform)
        case (_, .liveActivityStart): SignedMessage.liveActivityStartToken(ts: proof.timestampMs, token: token)
        default: SignedMessage.liveActivityToken(ts: proof.timestampMs, token: token)
        }
    }
}
