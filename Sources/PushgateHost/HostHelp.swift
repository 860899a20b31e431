import PushgateCore

/// `pushgate-host --help`: the commands, then every row of ``SettingName/table``.
enum HostHelp {
    static let usage = "usage: pushgate-host [run | --check-config | identity | identity rotate | "
        + "import-openchamber FILE [--environment production|sandbox] | --help | --version]"

    static var text: String {
        """
        pushgate-host: the push host beside an agent hub (docs/host.md)

        usage:
          pushgate-host [run]              serve the host API until SIGTERM or SIGINT
          pushgate-host --check-config     check every setting and the files they name, print what
                                           would run (secrets left out); writes nothing; exit 0 or 2
          pushgate-host identity           print the serverId (made on first use)
          pushgate-host identity rotate    a new signing key, then register every token again
          pushgate-host import-openchamber FILE [--environment production|sandbox]
                                           take over OpenChamber's device tokens
          pushgate-host --help             this text
          pushgate-host --version          the version and the versions of the linked libraries

        Every setting resolves environment > settings.json in the home > default. An environment
        value is written into settings.json once, when its key is absent there. Blank values count
        as unset; paths may start with ~.

        settings:

        """ + SettingsHelp.render(SettingName.table.map { row in
            SettingsHelp.Entry(names: row.environmentNames + (row.key.map { ["settings.json \($0)"] } ?? []),
                               meaning: row.meaning, defaultValue: row.defaultValue)
        }) + """

        exit status: 0 stopped after SIGTERM or SIGINT, or the command did its work; 1 a failure;
        2 a settings or usage problem (the message names the setting).

        """
    }
}
