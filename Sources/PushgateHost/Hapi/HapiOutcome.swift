/// What became of one send to one device on the encrypted path.
///
/// - Important: hapi-path.md (terms) — `sent` means the relay or provider accepted it (not a
///   handset receipt); `dead` means the token is confirmed dead and the host deletes the row;
///   `failed` is anything else, and the row is kept.
public enum HapiOutcome: String, Sendable, Equatable {
    case sent, dead, failed
}
