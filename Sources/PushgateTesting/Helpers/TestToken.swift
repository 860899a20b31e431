import PushgateCore

/// Random device tokens of the forms the relay and the host accept.
public enum TestToken {
    /// An APNs device token: `bytes` random bytes in hex (32, as iOS makes them).
    public static func make(_ bytes: Int = 32) -> String { Hex.encode(SecureRandom.bytes(bytes)) }

    /// An FCM registration token, as an Android phone has one: `<instance id>:<token>`; `name`
    /// starts it, so a test can tell tokens apart in the fake's record.
    public static func android(_ name: String = "phone") -> String { name + ":APA91b" + Base64URL.encode(SecureRandom.bytes(48)) }
}
