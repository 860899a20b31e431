extension Duration {
    /// The duration in seconds, as a `Double` (for rates, and for waits given in seconds).
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
