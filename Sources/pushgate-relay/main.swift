import Foundation
import PushgateRelay

// `pushgate-relay`: the signed push relay. Settings: docs/relay.md.
exit(await RelayMain.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
