import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateHTTP
import PushgateStore

// The `pushgate` tool, what operators run; docs/tool.md describes every command. The fakes
// and the benchmark drivers are `pushgate-dev`'s (docs/dev-tool.md). To add a command, add a
// line here and put the command in its own file.
let commands = [
    ToolCommand(name: "identity", usage: IdentityCommand.usage, run: IdentityCommand.run),
    ToolCommand(name: "sign", usage: SignCommand.usage, run: SignCommand.run),
    ToolCommand(name: "verify", usage: VerifyCommand.usage, run: VerifyCommand.run),
    ToolCommand(name: "envelope", usage: EnvelopeCommand.usage, run: EnvelopeCommand.run),
    ToolCommand(name: "canonical-json", usage: CanonicalJSONCommand.usage, run: CanonicalJSONCommand.run),
    ToolCommand(name: "relay", usage: RelayCommand.usage, run: RelayCommand.run),
    ToolCommand(name: "gateway", usage: GatewayCommand.usage, run: GatewayCommand.run),
]
exit(ToolCommand.main(Array(CommandLine.arguments.dropFirst()), program: "pushgate", guide: "docs/tool.md",
                      libraries: LinkedLibrary.core + LinkedLibrary.http + LinkedLibrary.store, commands: commands))
