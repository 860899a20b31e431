/// Every numbered migration of the relay database, bindings (version 1) then the gateway
/// tables (version 2); each store that opens `relay.sqlite` migrates with this whole list, so
/// neither finds the file "newer than this build".
///
/// - Important: orca-gateway.md §8 — schema changes go through the relay's numbered migrations.
enum RelaySchema {
    static let migrations = BindingSchema.migrations + GatewaySchema.migrations
}
