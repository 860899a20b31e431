import PushgateCore

/// `pushgate-relay --help`: the commands, then every row of ``RelaySetting/table``.
enum RelayHelp {
    static var text: String {
        """
        pushgate-relay: the signed push relay in front of APNs and FCM (docs/relay.md)

        usage:
          pushgate-relay [FLAGS]                  serve until SIGTERM or SIGINT
          pushgate-relay --check-config [FLAGS]   check every setting and the files they name, print
                                                  what would run (secrets left out); exit 0 or 2
          pushgate-relay bindings --token HEX [--clear] [FLAGS]
                                                  the hosts that hold a device token (--clear: remove them)
          pushgate-relay backup FILE [FLAGS]      a consistent copy of the SQLite database, taken while
                                                  the relay runs
          pushgate-relay --help                   this text
          pushgate-relay --version                the version and the versions of the linked libraries

        Every setting is an environment variable; most are also a flag, --name VALUE or --name=VALUE.
        Flags win over the environment, the environment over defaults; blank values count as unset.

        settings:

        """ + SettingsHelp.render(RelaySetting.table.map { row in
            SettingsHelp.Entry(names: [row.environment] + (row.flag.map { [$0] } ?? []), meaning: row.meaning,
                               defaultValue: row.defaultValue)
        }) + """

        exit status: 0 stopped after SIGTERM or SIGINT, or the command did its work; 1 start-up or the
        store failed; 2 an invalid setting or usage (the message names it).

        """
    }
}
