import Foundation
import PushgateStore

/// `pushgate-relay backup FILE [relay settings]`: a consistent copy of the relay's SQLite
/// database (`DATABASE_PATH`), taken while the relay serves, written to FILE (mode 0600,
/// atomically). A relay on PostgreSQL is refused: its database is backed up with `pg_dump`
/// (docs/relay.md "Backup").
enum BackupCommand {
    static let usage = "usage: pushgate-relay backup FILE [relay settings such as --database-path]"

    /// Runs the command; returns the exit status (0 done, 2 bad arguments or settings, 1 the copy failed).
    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        if arguments == ["--help"] {
            FileHandle.standardOutput.write(Data((usage + "\n").utf8))
            return 0
        }
        guard let file = arguments.first, !file.hasPrefix("--") else { return fail(usage, status: 2) }
        let configuration: RelayConfiguration
        do {
            // The store's settings only: no provider credentials are needed for a copy.
            configuration = try RelayConfiguration(arguments: Array(arguments.dropFirst()) + ["--dry-run"], environment: environment)
        } catch {
            return fail(error.description, status: 2)
        }
        if configuration.databaseURL != nil {
            return fail("the relay's store is PostgreSQL (\(SettingsSource.displayName("DATABASE_URL"))): back it up with pg_dump, "
                        + "e.g. pg_dump --format=custom --file=relay.dump DATABASE (docs/relay.md \"Backup\")", status: 2)
        }
        do {
            let pages = try SQLiteFile.backup(from: configuration.databasePath, to: file)
            FileHandle.standardOutput.write(Data("backed up \(configuration.databasePath) to \(file) (\(pages) pages)\n".utf8))
            return 0
        } catch {
            return fail(error.description, status: 1)
        }
    }

    private static func fail(_ message: String, status: Int32) -> Int32 {
        FileHandle.standardError.write(Data("pushgate-relay backup: \(message)\n".utf8))
        return status
    }
}
