import PushgateCore
import Testing

/// `pushgate --help`, `pushgate COMMAND --help` and `pushgate --version` answer on standard
/// output with exit status 0 (what a man page is made from).
@Suite struct HelpAndVersionTests {
    @Test func helpAndVersionExitZero() throws {
        for words in [["--help"], ["-h"], ["help"]] {
            let help = try PushgateTool.run(words)
            #expect(help.status == 0 && help.stdout.contains("pushgate identity new") && help.stdout.contains("pushgate --version"))
        }
        let command = try PushgateTool.run(["sign", "--help"])
        #expect(command.status == 0 && command.stdout.contains("pushgate sign") && command.stderr.isEmpty)
        let version = try PushgateTool.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.split(separator: "\n").first.map(String.init) == "pushgate \(PushgateVersion.current)")
        #expect(version.stdout.contains("OpenSSL ") && version.stdout.contains("libpq "))
    }
}
