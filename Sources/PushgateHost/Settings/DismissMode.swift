/// How a `resolved` event dismisses the notifications it resolves (`PUSHGATE_DISMISS_MODE`,
/// docs/host.md "Dismissal").
public enum DismissMode: String, Sendable, CaseIterable {
    /// A passive "Answered on desktop" alert replaces each banner through its collapse id (or
    /// Android tag): works with any app, an unmodified one included.
    case banner
    /// The replacement, then a background push listing the collapse ids resolved in the last
    /// 24 h, for an app that removes them itself.
    case background
}
