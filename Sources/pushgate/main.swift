import Foundation

// The `pushgate` tool; docs/tool.md describes every command. To add one, add a line here
// and put the command in its own file.
let commands = [
    ToolCommand(name: "identity", usage: IdentityCommand.usage, run: IdentityCommand.run),
    ToolCommand(name: "sign", usage: SignCommand.usage, run: SignCommand.run),
    ToolCommand(name: "verify", usage: VerifyCommand.usage, run: VerifyCommand.run),
    ToolCommand(name: "envelope", usage: EnvelopeCommand.usage, run: EnvelopeCommand.run),
    ToolCommand(name: "canonical-json", usage: CanonicalJSONCommand.usage, run: CanonicalJSONCommand.run),
    ToolCommand(name: "relay", usage: RelayCommand.usage, run: RelayCommand.run),
    ToolCommand(name: "fake-apns", usage: FakeAPNsCommand.usage, run: FakeAPNsCommand.run),
    ToolCommand(name: "fake-fcm", usage: FakeFCMCommand.usage, run: FakeFCMCommand.run),
    ToolCommand(name: "bench", usage: BenchCommand.usage, run: BenchCommand.run),
    ToolCommand(name: "gateway", usage: GatewayCommand.usage, run: GatewayCommand.run),
]
exit(ToolCommand.main(Array(CommandLine.arguments.dropFirst()), commands: commands))
