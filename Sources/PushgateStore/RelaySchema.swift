/// Every numbered migration of the relay database: bindings (version 1), the gateway tables
/// (version 2), the binding quotas (version 3), the gateway's outbox (version 4), its window
/// ids (version 5), the `android` binding kind (version 6) and the `liveactivitystart` kind
/// (version 7). Each store that opens `relay.sqlite` migrates with this whole list, so
/// neither finds the file "newer than this build".
///
/// - Important: docs/gateway.md — schema changes go through the relay's numbered migrations.
enum RelaySchema {
    static let migrations = [
        BindingSchema.bindings,
        Migration(version: 2, sql: GatewaySchema.tables),
        BindingSchema.quotas(version: 3, integer: "INTEGER", text: "TEXT", tableOptions: " WITHOUT ROWID"),
        Migration(version: 4, sql: GatewaySchema.outbox),
        Migration(version: 5, sql: GatewaySchema.outboxWindows),
        BindingSchema.androidKind,
        BindingSchema.liveActivityStartKind,
    ]
}
