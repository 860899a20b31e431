import Foundation
import PushgateHost

// `pushgate-host`: the host beside an agent hub. Settings: docs/host.md.
exit(await HostMain.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
