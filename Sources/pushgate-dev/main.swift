import Foundation
import PushgateCommandLine
import PushgateCore
import PushgateHTTP
import PushgateStore

// `pushgate-dev`, the developers' tool: the fake providers and the benchmark drivers, which
// the operators' `pushgate` does not carry (docs/dev-tool.md). To add a command, add a line
// here and put the command in its own file.
let commands = [
    ToolCommand(name: "fake-apns", usage: FakeAPNsCommand.usage, run: FakeAPNsCommand.run),
    ToolCommand(name: "fake-fcm", usage: FakeFCMCommand.usage, run: FakeFCMCommand.run),
    ToolCommand(name: "bench", usage: BenchCommand.usage, run: BenchCommand.run),
]
exit(ToolCommand.main(Array(CommandLine.arguments.dropFirst()), program: "pushgate-dev", guide: "docs/dev-tool.md",
                      libraries: LinkedLibrary.core + LinkedLibrary.http + LinkedLibrary.store, commands: commands))
